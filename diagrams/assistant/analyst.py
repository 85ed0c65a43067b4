"""The built-in analyst (no network, no model): finds the entities a question names, reads what
is asked from its words and answers with the tools; a nameless follow-up means the last entity.

Long because reading questions is one ordered cascade of patterns (`_route`, where order
decides) plus the small readers it uses, which are best read together."""

import calendar
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from diagrams.assistant import tools
from diagrams.assistant.context import Answer, AssistantContext, Turn
from diagrams.assistant.matching import (
    MatchWork,
    Mention,
    find_mentions,
    folded_text,
    words,
    words_text,
)

CAN_ANSWER = (
    "who produces or consumes a topic; what a service produces, consumes or talks "
    "to; what is affected if a service or topic fails; how data gets from A to B; "
    "who owns a service and what a team owns; what is in a flow or category; topics "
    "with no producer or consumer; cycles; the busiest topics and services; what "
    "changed recently; and a summary of the project"
)

MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        start=1,
    )
}
MONTHS.update({name[:3]: number for name, number in list(MONTHS.items())})
MONTHS["sept"] = 9


def _has(text: str, *patterns: str) -> bool:
    return any(re.search(p, text) for p in patterns)


# "in September", "during march 2025", "since May", "in 2025": a month or a year named
# without a day. A preposition is needed: "may" alone is a verb more often than a month.
MONTH_OR_YEAR = re.compile(
    r"\b(in|during|throughout|since|after|from)\s+(?:the\s+month\s+of\s+)?"
    r"(?:([a-z]{3,9})\b(?:,?\s+(\d{4})\b)?|(\d{4})\b)"
)


# "since 2025-09": a month written as numbers, after the same words
NUMERIC_MONTH = re.compile(
    r"\b(in|during|throughout|since|after|from)\s+(\d{4})-(\d{1,2})\b(?!-\d)"
)
# the years a question about an architecture's history can mean ("in 1000 ms" is no year)
YEARS = range(1970, 3000)


def _month_or_year(text: str, now: datetime) -> tuple[datetime, datetime | None] | None:
    """The period a month or a year stands for: all of it after in/during/throughout (a bare
    month is its last begun), from its start on after since/after/from."""
    for found in NUMERIC_MONTH.finditer(text):
        word, year, month = found.group(1), int(found.group(2)), int(found.group(3))
        if year in YEARS and 1 <= month <= 12:
            return _period_of(word, datetime(year, month, 1, tzinfo=UTC), months=1)
    for found in MONTH_OR_YEAR.finditer(text):
        word, name, year, year_alone = found.groups()
        if year_alone is not None and int(year_alone) in YEARS:
            return _period_of(word, datetime(int(year_alone), 1, 1, tzinfo=UTC), months=12)
        if name in MONTHS:
            number = int(year) if year else now.year
            if number not in YEARS:
                continue
            start = datetime(number, MONTHS[name], 1, tzinfo=UTC)
            if year is None and start > now:
                start = start.replace(year=number - 1)
            return _period_of(word, start, months=1)
    return None


def _period_of(word: str, start: datetime, *, months: int) -> tuple[datetime, datetime | None]:
    """From `start` on after since, after or from; else the `months` (1 or 12) from it."""
    if word in ("since", "after", "from"):
        return start, None
    month = start.month - 1 + months
    return start, start.replace(year=start.year + month // 12, month=month % 12 + 1)


def _period(text: str, now: datetime) -> tuple[datetime, datetime | None] | None:
    """The period a question asks about, as its start and its end (None: until now), or
    None when it names none."""
    match = re.search(r"(?:last|past|previous)\s+(\d+)\s+(day|week|month|hour)s?", text)
    if match:
        count, unit = min(int(match.group(1)), 36500), match.group(2)  # 100 years at most
        days = {"day": 1, "week": 7, "month": 30, "hour": 1 / 24}[unit]
        return now - timedelta(days=count * days), None
    if "this year" in text:
        return datetime(now.year, 1, 1, tzinfo=UTC), None
    start = _since_day(text, now)
    if start is not None:
        return start, None
    named = _month_or_year(text, now)
    if named is not None:
        return named
    if re.search(r"\byesterday\b", text) and not re.search(r"\bsince\s+yesterday\b", text):
        # that day alone ("since yesterday" goes on to now): "what changed yesterday?" had
        # listed today's changes too
        today = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return today - timedelta(days=1), today
    start = _since_phrase(text, now)
    return None if start is None else (start, None)


def _former_service(context: AssistantContext, raw: str) -> tuple[str, str] | None:
    """A service the question names by a name it no longer has (renamed, or deleted): its
    id and that name, the longest such name the question holds as whole words."""
    current = {entity["name"].casefold() for entity in context.entities["services"].values()}
    asked = raw.casefold()
    found, seen = None, set(current)
    for event in context.history:  # newest first: a name's latest holder
        name = event.service_name.casefold()
        if name in seen or (found and len(name) <= len(found[1])):
            continue
        seen.add(name)
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", asked):
            found = (event.service_key, event.service_name)
    return found


def _since_day(text: str, now: datetime) -> datetime | None:
    """A day: 2026-09-01, 5 September, Sept 5th 2025."""
    match = re.search(r"(\d{4})-(\d{1,2})-(\d{1,2})", text)
    if match:
        year, month, day = (int(g) for g in match.groups())
        try:
            return datetime(year, month, day, tzinfo=UTC)
        except ValueError:
            return None
    match = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]{3,9})\b(?:\s+(\d{4}))?", text)
    month_first = re.search(r"\b([a-z]{3,9})\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?", text)
    for found, day_group, month_group in ((match, 1, 2), (month_first, 2, 1)):
        if found and found.group(month_group) in MONTHS:
            year = int(found.group(3)) if found.group(3) else now.year
            try:
                start = datetime(
                    year, MONTHS[found.group(month_group)], int(found.group(day_group)), tzinfo=UTC
                )
            except ValueError:
                continue
            if start <= now:
                return start
            year = start.year - 1
            while start.month == 2 and start.day == 29 and not calendar.isleap(year):
                year -= 1  # 29 February a year on: the last year that had one (not 2100)
            return start.replace(year=year)
    return None


def _since_phrase(text: str, now: datetime) -> datetime | None:
    for phrase, days in (
        ("yesterday", 1),
        ("today", 0),
        ("this week", 7),
        ("last week", 7),
        ("this month", 30),
        ("last month", 30),
        ("last year", 365),
        ("recently", 7),
        ("lately", 7),
    ):
        if phrase in text:
            start = now - timedelta(days=days)
            return start.replace(hour=0, minute=0, second=0, microsecond=0) if days <= 1 else start
    return None


REFERRED_KIND = (
    ("team", "owner"),
    ("owner", "owner"),
    ("service", "service"),
    ("topic", "messaging"),
    ("flow", "flow"),
    ("category", "category"),
)


def _recent_mentions(
    context: AssistantContext, history: list[Turn], text: str = "", work: MatchWork | None = None
) -> list[Mention]:
    """What "it" or "that team" refers to: the entities (of the kind said) of the latest question
    naming any, else of the latest answer; `work` is the question's shared matching budget."""
    wanted = next(
        (
            kind
            for word, kind in REFERRED_KIND
            if re.search(rf"\b(that|this|the|same)\s+{word}", text)
        ),
        None,
    )
    recent = history[-6:]
    for role in ("user", "assistant"):
        for turn in reversed(recent):
            if turn.role == role:
                found = [
                    m
                    for m in find_mentions(context, turn.content, work)
                    if wanted is None or m.kind == wanted
                ]
                if found:
                    return found
    return []


# Words a name may be made of that are also the words of a question ("What", "data"): when
# a question names something else too, a name of only these is taken for the question's.
QUESTION_WORDS = {
    "a", "all", "an", "and", "any", "are", "data", "do", "does", "for", "from", "how", "in",
    "is", "it", "of", "on", "or", "that", "the", "this", "to", "what", "when", "where",
    "which", "who", "why", "with",
}  # fmt: skip


def _named(mentions: list[Mention]) -> list[Mention]:
    """The mentions a question is about: a name made only of question words ("What", a
    topic "data") does not count when another name is in the question."""
    if len(mentions) < 2:
        return mentions
    kept = [m for m in mentions if not set(words(m.name)) <= QUESTION_WORDS]
    return kept or mentions


def _blanked(tokens: list[str], mentions: list[Mention]) -> str:
    """The question's words with its names blanked ("x"), so what is asked is read from the other
    words only (a topic "cart.failed.v2" does not make a question about failures)."""
    covered = {i for m in mentions for i in range(m.start, m.start + m.length)}
    return " ".join("x" if i in covered else token for i, token in enumerate(tokens))


_POINTERS = {"it", "its", "that", "this", "them", "those", "they", "there", "he", "she"}


def _refers_back(text: str) -> bool:
    """Whether a question without a name points back at one ("and who consumes it?"). "Are
    there any cycles?" and "this project" do not."""
    text = re.sub(
        r"\b(this|that|the|our)\s+(project|architecture|system|graph|diagram|organi[sz]ation)\b",
        " ",
        text,
    )
    text = re.sub(r"\b(is|are|was|were|any)\s+there\b|\bthere\s+(is|are|was|were|s)\b", " ", text)
    return _has(text, r"\b(it|its|that|this|them|those|they|there|he|she)\b")


OUT_OF_SCOPE = (
    r"\b(cpu|memory|ram|disk space|latency|uptime|response time|cost|costs|"
    r"salary|weather|revenue|sla|error rate|logs?|password|secret)\b"
)


def analyst_answer(context: AssistantContext, message: str, history: list[Turn]) -> Answer:
    """Answer one question about the project, from its graph and history."""
    work = MatchWork()  # one bound on the fuzzy matching of the question and its history
    asked = mentions = _named(find_mentions(context, message, work))
    text = _blanked(words(message), mentions)
    if not mentions and _refers_back(text):
        # "and who consumes it?": the names it points back at, standing where "it" stands
        tokens = text.split()
        at = next((i for i, t in enumerate(tokens) if t in _POINTERS), 0)
        recent = _recent_mentions(context, history, text, work)
        mentions = [replace(m, start=at, length=1) for m in recent]
    elif (
        mentions
        and _has(
            text,
            r"^(and |so |ok |okay )?(what|how) about\b|^and\b|"
            r"^same (for|with)\b",
        )
        and not _asks_anything(text)
    ):
        # "and what about Pricing?": the previous question, about this entity
        previous = next((t.content for t in reversed(history) if t.role == "user"), None)
        if previous:
            before = _named(find_mentions(context, previous, work))
            text = _blanked(words(previous), before)
            # the new names stand where the previous question's stood: what is asked
            # depends on where a name is in it ("what does X depend on?")
            mentions = [
                replace(m, start=before[i].start, length=before[i].length) if i < len(before) else m
                for i, m in enumerate(mentions)
            ]
    answer = _route(context, text, message, mentions)
    return _with_rivals(answer, message, asked)


def _with_rivals(answer: Answer, message: str, mentions: list[Mention]) -> Answer:
    """An answer that took a typo for one name when others are as close says so."""
    notes = []
    for mention in mentions:
        if mention.alike and mention.name in answer.reply:
            said = words_text(message, mention.start, mention.length)
            others = list(mention.alike)
            shown = ", ".join(others[:3]) + (
                f" and {len(others) - 3:,} more" if len(others) > 3 else ""
            )
            notes.append(
                f"I read “{said}” as {mention.name}; {shown} "
                f"{'is' if len(others) == 1 else 'are'} as close."
            )
    if not notes:
        return answer
    return Answer(f"{answer.reply}\n({' '.join(notes)})", answer.references)


def _asks_anything(text: str) -> bool:
    return _has(text, r"produc|consum|own|fail|cycle|path|busiest|chang|summar|depend|flow to")


def _route(context: AssistantContext, text: str, raw: str, mentions: list[Mention]) -> Answer:
    kinds = [m.kind for m in mentions]
    first = {
        kind: next((m for m in mentions if m.kind == kind), None)
        for kind in ("service", "messaging", "owner", "flow", "category")
    }
    node_mentions = [m for m in mentions if m.kind in ("service", "messaging")]
    now = context.now or timezone.now()

    if _has(
        text,
        r"\b(other|another|different)\s+(\w+\s+)?(projects?|organi[sz]ations?|orgs?|"
        r"tenants?|customers?|compan(y|ies)|workspaces?)\b",
        r"\b(all|every|any)\s+(\w+\s+)?(projects?|organi[sz]ations?|orgs?|tenants?|workspaces?)\b",
        r"\b(projects|organi[sz]ations|tenants)\b",
    ):
        reply = tools.summary(context)
        return Answer(
            f"I can only see this project, {context.project_name}. {reply.reply}", reply.references
        )
    if _has(text, OUT_OF_SCOPE):
        return _cannot(context)
    if _has(text, r"\b(chang|modif|edit|updat|renam|delet|remov|add|creat|happen|new)\w*"):
        period = _period(raw.lower(), now)
        # a service by a name it had (renamed since, or deleted): "what happened to
        # Warehouse?" was "I can't answer that"
        former = None if first["service"] else _former_service(context, raw)
        if (
            period is not None
            or former is not None
            or _has(text, r"what (has )?changed|what s new|any changes")
        ):
            service = first["service"].entity_id if first["service"] else None
            if former is not None and period is None:  # its whole history, as far as kept
                period = (datetime.min.replace(tzinfo=UTC), None)
            since, until = period or (now - timedelta(days=7), None)
            return tools.changes(context, since, service, until=until, former=former)
    if _has(text, r"\bcycles?\b|\bloops?\b|circular|round trip|feedback"):
        return tools.cycles(context, node_mentions[0].entity_id if node_mentions else None)
    if _has(
        text,
        r"\b(no|without|missing|zero|lack\w*)\s+(producer|consumer|one|publisher|"
        r"subscriber|reader|writer)",
        r"orphan|unconsumed|unproduced|unused|"
        r"dead end|nobody (produces|consumes|reads|writes|listens)|"
        r"(never|not) (consumed|produced|read|written)",
    ):
        return tools.orphans(context)
    if not node_mentions and _has(
        text,
        r"busiest|most (used|popular|connected|consumed|produced|read|important|"
        r"central|active|consumers|producers|connections|links|topics|traffic)|"
        r"\bhubs?\b|hotspot|heaviest|\btop\b|bottleneck|(consume|produce|read|"
        r"publishe?|use)s? the most|by traffic",
    ):
        return tools.busiest(context)
    if not mentions and _has(
        text,
        r"summar|overview|describe|about (the|this) project|"
        r"big picture|how (big|large|many)|what is in (the|this) "
        r"project|what s in (the|this) project|architecture",
    ):
        return tools.summary(context)
    moved = re.search(r"\b(stop\w*|start\w*|began|begun|beg[iu]n\w*)\s+(consum|produc)\w*", text)
    if moved and node_mentions and node_mentions[0].kind == "messaging":
        # "who stopped consuming orders.confirmed?" is a question about the history, not
        # about what fails with the topic (it was answered as one)
        verb = "stopped" if moved.group(1).startswith("stop") else "started"
        gerund = "consuming" if moved.group(2) == "consum" else "producing"
        return tools.topic_moves(context, node_mentions[0].entity_id, verb, gerund)
    if node_mentions and _upstream(text, node_mentions[0]):
        return tools.impact(context, node_mentions[0].entity_id, upstream=True)
    if node_mentions and _has(
        text,
        r"\bfail|\bdown\b|break|outage|impact|affect|blast|"
        r"crash|depend\w* on|goes away|\bstop|\brel(y|ies|ying) on|\bneeds?\b|\bfeeds?\b",
    ):
        return tools.impact(context, node_mentions[0].entity_id)
    missing = _unnamed_end(text) if len(node_mentions) == 1 else None
    if missing:
        return Answer(
            f'I don\'t find "{missing}" in {context.project_name}: no service or topic has '
            f"that name, so I can't say how data gets there from "
            f"{node_mentions[0].name} or back.",
            [node_mentions[0].entity_id],
        )
    if len(node_mentions) >= 2 and _has(
        text,
        r"\bfrom\b.*\bto\b|\bpath|\broute|get\w* to|"
        r"reach|between|flow\w* (from|to)|connect|"
        r"lead\w* to|end\w* up|travel|make\w* it",
    ):
        return tools.path(context, *_ends(text, node_mentions))
    group = first["owner"] or first["flow"] or first["category"]
    if first["owner"] is not None and _has(text, r"\bown|\belse\b|\bwhat\b|\bwhich\b|list"):
        return tools.members(context, first["owner"].entity_id)
    if node_mentions and _has(
        text,
        r"\bown|responsib|maintain|\bteam\b|who runs|in charge|"
        r"\bwhose\b",
    ):
        return tools.owner_of(context, node_mentions[0].entity_id)
    if group is not None and (
        not node_mentions
        or _has(
            text,
            r"\bown|\bin\b|belong|part of|members|contain|\bhas\b|\bhave\b|list|which|"
            r"what",
        )
    ):
        return tools.members(context, group.entity_id)
    topic = first["messaging"]
    producing = _has(
        text,
        r"produc|publish|writ|emit|send|generat|push|come from|source|"
        r"origin|creat",
    )
    consuming = _has(
        text,
        r"consum|read|listen|subscrib|receiv|use[sd]?\b|process|handl|"
        r"goes? to|go to|sink|pick\w* up|pull",
    )
    if topic is not None and not first["service"]:
        if consuming and not producing:
            return tools.consumers(context, topic.entity_id)
        if producing and not consuming:
            return tools.producers(context, topic.entity_id)
        producers = tools.producers(context, topic.entity_id)
        consumers = tools.consumers(context, topic.entity_id)
        return Answer(
            f"{producers.reply} {consumers.reply}",
            list(dict.fromkeys(producers.references + consumers.references)),
        )
    if first["service"] is not None:
        return tools.service_io(context, first["service"].entity_id)
    if "messaging" in kinds or "service" in kinds:
        return tools.service_io(context, node_mentions[0].entity_id)
    subject = _unnamed_subject(text) if not mentions else None
    if subject:
        return _not_found(context, _as_written(raw, subject))
    return _cannot(context)


_LEANS = re.compile(r"^(depend\w*|rel(y|ies|ied|ying)|needs?|needed|feeds?|feeding|fed)$")


def _upstream(text: str, mention: Mention) -> bool:
    """Whether a question asks what an entity depends on ("what does X need?", "what feeds X?")
    rather than what depends on it, by where the name stands from the verb."""
    if _has(text, r"\bupstream\b"):
        return not _has(text, r"\bdownstream\b")
    tokens = text.split()
    verb = next((i for i, t in enumerate(tokens) if _LEANS.match(t)), None)
    if verb is None:
        return False
    before = mention.start < verb
    return not before if tokens[verb].startswith(("feed", "fed")) else before


_NOT_A_NAME = QUESTION_WORDS | {
    "next", "end", "up", "there", "here", "then", "they", "them", "their", "we", "you",
    "do", "produce", "consume", "go", "goes", "where", "everything", "anything", "now",
}  # fmt: skip


def _unnamed_end(text: str) -> str | None:
    """The words at one end of a path question (names found blanked to "x" in `text`) that name
    nothing in the project, when they read as a name."""
    if not _has(
        text, r"\bpath\b|\broute\b|\breach|\bhow\b.*\b(get|gets|go|goes|flow|flows|travel)\b"
    ):
        return None
    match = re.search(r"\b(from|between)\s+(.+?)\s+(to|and)\s+(.+)$", text)
    if not match:
        return None
    ends = [match.group(2).split(), match.group(4).split()]
    unnamed = [e for e in ends if "x" not in e]
    if len(unnamed) != 1:
        return None
    if all(w in _NOT_A_NAME for w in unnamed[0]):
        return None
    name = [w for w in unnamed[0] if w not in QUESTION_WORDS][:4]
    return " ".join(name) or None


_VERBS = (
    r"owns?|maintains?|runs?|looks? after|is responsible for|s responsible for|"
    r"is in charge of|s in charge of|produces?|publish(es)?|writes?|emits?|sends?|"
    r"consumes?|reads?|subscribes? to|listens? to|receives?|uses?|depends? on|relies on|"
    r"needs?|feeds?|calls?|talks? to"
)
_SUBJECT_QUESTIONS = [
    re.compile(p)
    for p in (
        # who owns X? which services consume X? what depends on X?
        rf"^(who|what|which( \w+)?)\s+(?:{_VERBS})\s+(?P<name>.+)$",
        r"^(who|what|which( \w+)?) is (the )?owner of\s+(?P<name>.+)$",
        r"^(the )?owners? of\s+(?P<name>.+)$",
        r"^whose is\s+(?P<name>.+)$",
        # what does X produce? what does X depend on?
        rf"^(who|what|which( \w+)?)\s+(do|does|will|would|can)\s+(?P<name>.+?)\s+"
        rf"(?:{_VERBS.replace('s?', '').replace('(es)?', '')}|do)$",
        # what happens if X fails? what breaks when X goes down?
        r"^what\s+(happens|would happen|breaks|would break|fails|is affected|goes wrong)\s+"
        r"(if|when)\s+(?P<name>.+?)\s+(fails|goes down|is down|breaks|stops|crashes|dies|"
        r"goes away|is removed|has an outage)$",
        r"^(what is )?(the )?(impact|blast radius) of\s+(?P<name>.+?)(\s+(failing|going down))?$",
    )
]
_NOT_A_SUBJECT = _NOT_A_NAME | {
    "most", "least", "more", "fewest", "many", "much", "each", "every", "someone", "something",
    "nothing", "nobody", "me", "us", "else", "own", "owner", "owners", "team", "teams", "topic",
    "topics", "service", "services", "project", "today", "currently", "these", "those", "no",
    "not", "one", "ones", "s",
}  # fmt: skip
_TRAILING = {"now", "today", "currently", "here", "please", "again"}


def _unnamed_subject(text: str) -> str | None:
    """The words in the name's place of a question the analyst could answer, when they read as a
    name the project does not have ("who owns Inventory Service?" without one)."""
    for pattern in _SUBJECT_QUESTIONS:
        match = pattern.match(text)
        if match is None:
            continue
        name = match.group("name").split()
        while name and name[0] in ("the", "a", "an"):
            name = name[1:]
        while name and name[-1] in _TRAILING:
            name = name[:-1]
        if not name or len(name) > 6 or all(w in _NOT_A_SUBJECT for w in name):
            return None
        return " ".join(name)
    return None


def _as_written(message: str, name: str) -> str:
    """A name read from the question's folded words, as the question wrote it ("Über Dienst",
    not "uber dienst"), where it can be found there."""
    folded, origin = [], []  # the message folded a character at a time, and where from
    for at, char in enumerate(message):
        for piece in folded_text(char):
            folded.append(piece)
            origin.append(at)
    pattern = r"\W+".join(re.escape(word) for word in name.split())
    found = re.search(rf"(?<!\w){pattern}(?!\w)", "".join(folded))
    if found is None:
        return name
    return message[origin[found.start()] : origin[found.end() - 1] + 1]


def _not_found(context: AssistantContext, name: str) -> Answer:
    services = sorted((s["name"] for s in context.entities["services"].values()), key=str.casefold)
    if services:
        shown = services[:3]
        listed = ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]
        more = f" ({len(services):,} in all)" if len(services) > 3 else ""
        hint = f" Its services include {listed}{more}."
    else:
        hint = " It has no services yet."
    return Answer(
        f'I don\'t find "{name}" in {context.project_name}: no service, topic, team, flow or '
        f"category has that name.{hint}",
        [],
    )


def _ends(text: str, mentions: list[Mention]) -> tuple[str, str]:
    """The source and target of a path question: the name after "from" is where data
    starts ("is B reachable from A?"), else the names in the order given."""
    tokens = text.split()
    first, second = mentions[0], mentions[1]
    start = next((i for i, t in enumerate(tokens) if t == "from"), None)
    if start is not None:
        after = [m for m in mentions if m.start > start]
        if after:
            source = after[0]
            target = next(m for m in mentions if m is not source)
            return source.entity_id, target.entity_id
    return first.entity_id, second.entity_id


def _cannot(context: AssistantContext) -> Answer:
    return Answer(
        f"I can't answer that from {context.project_name}'s architecture. I can "
        f'tell you {CAN_ANSWER}. Try, for example, "who consumes '
        f'{_example_topic(context)}?"',
        [],
    )


def _example_topic(context: AssistantContext) -> str:
    topics = context.entities["topics"]
    return next(iter(topics.values()))["name"] if topics else "a topic"
