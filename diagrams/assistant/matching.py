"""Finding the project's entities a question names, exactly or fuzzily (case, punctuation and
small typos do not matter), at a cost bounded whatever the text (docs/assistant.md)."""

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from itertools import islice
from operator import add
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # context.py builds its name index with this module
    from diagrams.assistant.context import AssistantContext

_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script
_MARKS = re.compile("[\u0300-\u036f]")  # the combining accents NFKD splits off Latin letters
KINDS = {
    "services": "service",
    "topics": "messaging",
    "owners": "owner",
    "flows": "flow",
    "categories": "category",
}
FUZZY_MIN = 0.86  # the least difflib ratio of a fuzzy match
FUZZY_MIN_LENGTH = 5  # shorter names match exactly only
FUZZY_LENGTH_SLACK = 3  # a window at most this many characters longer or shorter than the name

# Bounds on the work of matching (a message has at most 4,000 characters, so 2,000 words),
# counted in a MatchWork a caller may share between texts. Within them the matches are those
# of comparing every name with every window: the prefilter never skips a match.
MAX_WORDS = 2000  # of one text
MAX_FUZZY_WINDOWS = 400  # distinct windows compared fuzzily, in order of appearance
MAX_COMPARISONS = 2000  # difflib ratios, a long one counting as several (_comparison_cost)
MAX_FILTER_STEPS = 200_000  # bit mask operations of the prefilter
MAX_FUZZY_CANDIDATES = 2000  # fuzzy (entity, place in the text) candidates of one text
MAX_EXACT_WORDS = 20_000  # words of the windows looked up exactly, in order of appearance
MAX_EXACT_CANDIDATES = 2000  # exact (entity, place in the text) candidates, in that order
MAX_FUZZY_PLACES = 20_000  # (window, place in the text) pairs considered for fuzzy matching


def _folded(text: str) -> str:
    return _MARKS.sub("", unicodedata.normalize("NFKD", text)).casefold()


folded_text = _folded  # for other modules: a text with case and accents folded


def words(text: str) -> list[str]:
    """The words of a text, case and accents folded ("Über-Service" is "uber service"), in
    any script ("支付.完成" is two words)."""
    return _WORD.findall(_folded(text))


def words_text(text: str, start: int, length: int) -> str:
    """Words start to start + length of a text as written between them ("topic-0034", not
    "topic 0034"), case and accents folded."""
    folded = _folded(text)
    spans = [match.span() for match in _WORD.finditer(folded)]
    if not 0 <= start < start + length <= len(spans):
        return " ".join(words(text)[start : start + length])
    return folded[spans[start][0] : spans[start + length - 1][1]]


@dataclass(frozen=True)
class Mention:
    entity_id: str
    kind: str  # service, messaging, owner, flow, category
    name: str
    start: int  # word index in the question
    length: int  # words covered
    score: float  # 1.0 exact
    # a fuzzy match's rivals as close as it (names), if any; not part of what it matched
    alike: tuple[str, ...] = field(default=(), compare=False)


@dataclass
class MatchWork:
    """The work find_mentions did, and may still do: MAX_FUZZY_WINDOWS and MAX_COMPARISONS
    bound the sums over every call given the same MatchWork."""

    words: int = 0
    windows: int = 0  # distinct windows compared fuzzily
    comparisons: int = 0  # difflib ratios computed
    comparison_cost: int = 0  # their sum of _comparison_cost, at most MAX_COMPARISONS
    filter_steps: int = 0  # bit mask operations
    candidates: int = 0  # exact and fuzzy candidates ranked
    exact_words: int = 0  # words of the windows looked up exactly, at most MAX_EXACT_WORDS
    exact_candidates: int = 0  # at most MAX_EXACT_CANDIDATES
    places: int = 0  # windows (with their place) considered fuzzily, at most MAX_FUZZY_PLACES
    capped: bool = False  # a bound cut the fuzzy matching short

    def spent(self) -> bool:
        """Whether the comparisons or the prefilter reached their bound (then no more)."""
        if self.comparison_cost >= MAX_COMPARISONS or self.filter_steps >= MAX_FILTER_STEPS:
            self.capped = True
            return True
        return False


def _comparison_cost(window: str, name: str) -> int:
    """A difflib ratio's cost in ratios of short names (its time grows with both lengths)."""
    return 1 + len(window) * len(name) // 400


@dataclass(frozen=True)
class _Entry:
    target: str  # the name's words, joined by spaces
    size: int  # words
    entity_id: str
    kind: str
    display: str


def _gram_keys(text: str) -> list[tuple[str, int]]:
    """The characters of `text` and its character pairs, the n-th occurrence of each keyed
    apart, so that the keys two strings share count what they have in common."""
    counts = Counter(text)
    counts.update(map(add, text, text[1:]))
    return [(gram, n) for gram, count in counts.items() for n in range(1, count + 1)]


def _least_shared(total: int) -> tuple[int, int]:
    """The fewest characters, and character pairs, two strings of `total` characters in all
    share when their difflib ratio is at least FUZZY_MIN (a bound, never too high)."""
    # ratio = 2M/total (M characters in k matching blocks), so M >= 0.43 total; blocks are
    # apart, so k <= total - 2M + 1, and a block of l characters holds l - 1 pairs:
    # at least M - k >= 3M - total - 1 pairs in common
    matched = -(-43 * total // 100)  # ceil(0.43 total), 0.43 = FUZZY_MIN / 2
    return matched, 3 * matched - total - 1


def _mask(positions: list[int]) -> int:
    bits = bytearray(max(positions) // 8 + 1)
    for position in positions:
        bits[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(bits, "little")


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Bucket:
    """The fuzzily matchable names of one length and word count, as bit masks over
    `members`: which have each character and character pair (its n-th occurrence)."""

    def __init__(self, members: list[int], entries: list[_Entry]):
        self.members = members
        grams: dict[tuple[str, int], list[int]] = defaultdict(list)
        for position, index in enumerate(members):
            for key in _gram_keys(entries[index].target):
                grams[key].append(position)
        self.grams = {key: _mask(positions) for key, positions in grams.items()}

    def candidates(self, keys: list[tuple[str, int]], total: int, work: MatchWork) -> int:
        """The members with enough characters and character pairs of `keys` (a window's) in
        common to reach FUZZY_MIN, `total` the characters of both."""
        chars, pairs = _least_shared(total)
        found = self._having(
            (1 << len(self.members)) - 1, [k for k in keys if len(k[0]) == 1], chars, work
        )
        return self._having(found, [k for k in keys if len(k[0]) == 2], pairs, work)

    def _having(
        self, members: int, keys: list[tuple[str, int]], least: int, work: MatchWork
    ) -> int:
        """The `members` having at least `least` of `keys`: counted up to `least`, or, when
        fewer, the misses counted up to what a member can afford."""
        if least <= 0 or not members:
            return members
        masks = [mask for key in keys if (mask := self.grams.get(key, 0) & members)]
        spare = len(masks) - least  # the keys a member may miss
        if spare < 0:
            return 0
        if work.spent():
            return 0
        work.filter_steps += len(keys) + len(masks) * min(least, spare + 1)
        if least <= spare + 1:
            level = [members] + [0] * least  # level[j]: having at least j keys so far
            for seen, mask in enumerate(masks, 1):
                for j in range(min(seen, least), 0, -1):
                    level[j] |= level[j - 1] & mask
            return level[least]
        missed = [members] + [0] * (spare + 1)  # missed[j]: missing at least j keys so far
        for seen, mask in enumerate(masks, 1):
            absent = members & ~mask
            for j in range(min(seen, spare + 1), 0, -1):
                missed[j] |= missed[j - 1] & absent
        return members & ~missed[spare + 1]


class NameIndex:
    """Every entity's name (services also by slug) as words, looked up exactly by its first
    word and fuzzily by length and character pairs; built once a context."""

    def __init__(self, entities: dict):
        self.entries: list[_Entry] = []
        unique = set()
        for group, kind in KINDS.items():
            for entity_id, entity in entities[group].items():
                names = [entity["name"]]
                if kind == "service" and entity.get("slug"):
                    names.append(entity["slug"])
                for name in names:
                    target = " ".join(words(name))
                    if target and (target, entity_id) not in unique:
                        unique.add((target, entity_id))
                        self.entries.append(
                            _Entry(target, target.count(" ") + 1, entity_id, kind, entity["name"])
                        )
        self.exact: dict[str, list[int]] = {}
        first_sizes: dict[str, set[int]] = defaultdict(set)
        self.fuzzy: dict[tuple[int, int], list[int]] = defaultdict(list)  # (length, words)
        for index, entry in enumerate(self.entries):
            self.exact.setdefault(entry.target, []).append(index)
            first_sizes[entry.target.split(" ", 1)[0]].add(entry.size)
            if len(entry.target) >= FUZZY_MIN_LENGTH:
                self.fuzzy[len(entry.target), entry.size].append(index)
        self.first_sizes = {word: sorted(sizes) for word, sizes in first_sizes.items()}
        self.fuzzy_spans = sorted({s + d for _, s in self.fuzzy for d in (-1, 0, 1)} - {0})
        self.longest = max((length for length, _ in self.fuzzy), default=0)
        self._buckets: dict[tuple[int, int], _Bucket] = {}  # built when first needed

    def _bucket(self, length: int, size: int) -> _Bucket | None:
        if (length, size) not in self.fuzzy:
            return None
        if (length, size) not in self._buckets:
            self._buckets[length, size] = _Bucket(self.fuzzy[length, size], self.entries)
        return self._buckets[length, size]

    def exact_mentions(self, tokens: list[str], work: MatchWork) -> list[Mention]:
        """The names of the windows of `tokens`, in order of appearance until MAX_EXACT_WORDS or
        MAX_EXACT_CANDIDATES (over all texts sharing `work`), however names repeat or nest."""
        found = []
        for start, token in enumerate(tokens):
            for size in self.first_sizes.get(token, ()):
                if start + size > len(tokens):
                    break
                if (
                    work.exact_words + size > MAX_EXACT_WORDS
                    or work.exact_candidates >= MAX_EXACT_CANDIDATES
                ):
                    work.capped = True
                    return found
                work.exact_words += size
                indices = self.exact.get(" ".join(tokens[start : start + size]), ())
                spare = MAX_EXACT_CANDIDATES - work.exact_candidates
                if len(indices) > spare:
                    work.capped = True
                    indices = indices[:spare]
                work.exact_candidates += len(indices)
                for index in indices:
                    entry = self.entries[index]
                    found.append(
                        Mention(entry.entity_id, entry.kind, entry.display, start, size, 1.0)
                    )
        return found

    def fuzzy_matches(
        self, window: str, span: int, skip: set[str], work: MatchWork
    ) -> list[tuple[_Entry, float]]:
        """The names of entities not in `skip` a window of `span` words matches fuzzily."""
        keys = _gram_keys(window)
        matches = []
        for length in range(
            max(FUZZY_MIN_LENGTH, len(window) - FUZZY_LENGTH_SLACK),
            len(window) + FUZZY_LENGTH_SLACK + 1,
        ):
            for size in (span - 1, span, span + 1):
                bucket = self._bucket(length, size)
                if bucket is None:
                    continue
                found = bucket.candidates(keys, len(window) + length, work)
                for position in _bits(found):
                    entry = self.entries[bucket.members[position]]
                    if entry.entity_id in skip or entry.target == window:
                        continue
                    if work.spent():
                        return matches
                    work.comparisons += 1
                    work.comparison_cost += _comparison_cost(window, entry.target)
                    score = SequenceMatcher(None, window, entry.target).ratio()
                    if score >= FUZZY_MIN:
                        matches.append((entry, score))
        return matches


# Words that say which kind a shared name means ("the checkout flow", "catalog service").
HINTS = {
    "flow": {"flow", "flows", "journey", "process"},
    "category": {"category", "categories", "domain", "domains", "area"},
    "owner": {"team", "teams", "squad", "owner", "owners"},
    "messaging": {
        "topic",
        "topics",
        "event",
        "events",
        "queue",
        "queues",
        "stream",
        "message",
        "messages",
        "channel",
    },
    "service": {"service", "services", "app", "application", "microservice", "system"},
}
DEFAULT_RANK = {"service": 0, "messaging": 1, "owner": 2, "flow": 3, "category": 4}


def _hint(tokens: list[str], start: int, span: int, kind: str, anywhere: set[str]) -> float:
    """How strongly the words around a name say it is of `kind`: next to it, two words
    away, or anywhere in the question (`anywhere`: the kinds a word of it hints at)."""
    hints = HINTS[kind]
    if set(tokens[max(0, start - 1) : start] + tokens[start + span : start + span + 1]) & hints:
        return 1.0
    if set(tokens[max(0, start - 2) : start] + tokens[start + span : start + span + 2]) & hints:
        return 0.75
    return 0.5 if kind in anywhere else 0.0


def _fuzzy_windows(
    tokens: list[str], spans: list[int], longest: int, taken: set[int], work: MatchWork
) -> tuple[dict[str, int], list[tuple[int, str]]]:
    """The distinct windows, of a length a name could match and clear of the exact matches,
    with their word counts, and where each occurs (within MAX_FUZZY_WINDOWS, _PLACES)."""
    joined = " ".join(tokens)
    ends = [0]  # ends[i]: the characters of tokens[:i], a space after each
    for token in tokens:
        ends.append(ends[-1] + len(token) + 1)
    blocked = [0]  # blocked[i]: the taken words among tokens[:i]
    for i in range(len(tokens)):
        blocked.append(blocked[-1] + (i in taken))
    distinct: dict[str, int] = {}
    places: list[tuple[int, str]] = []
    for start in range(len(tokens)):
        for span in spans:
            end = start + span
            if end > len(tokens) or blocked[end] != blocked[start]:
                break
            length = ends[end] - ends[start] - 1
            if length < FUZZY_MIN_LENGTH - FUZZY_LENGTH_SLACK:
                continue
            if length > longest + FUZZY_LENGTH_SLACK:
                break
            if work.places >= MAX_FUZZY_PLACES:
                work.capped = True
                return distinct, places
            work.places += 1
            window = joined[ends[start] : ends[end] - 1]
            if window not in distinct:
                if work.windows + len(distinct) >= MAX_FUZZY_WINDOWS:  # counted below
                    work.capped = True
                    continue
                distinct[window] = span
            places.append((start, window))
    return distinct, places


def find_mentions(
    context: "AssistantContext", text: str, work: MatchWork | None = None
) -> list[Mention]:
    """Entities named in `text`, not overlapping, in order of appearance; ranked exact first, then
    by ratio, name length, the kind nearby words hint at, then service/topic/team/flow/category."""
    work = work if work is not None else MatchWork()
    index: NameIndex = context.names
    tokens = words(text)[:MAX_WORDS]
    work.words += len(tokens)
    present = set(tokens)
    anywhere = {kind for kind, hints in HINTS.items() if present & hints}

    def rank(m: Mention):
        return (
            -m.score,
            -m.length,
            -_hint(tokens, m.start, m.length, m.kind, anywhere),
            DEFAULT_RANK[m.kind],
            m.start,
            m.entity_id,
        )

    taken: set[int] = set()
    seen: set[str] = set()
    chosen: list[Mention] = []

    def choose(candidates: list[Mention]) -> None:
        work.candidates += len(candidates)
        for mention in sorted(candidates, key=rank):
            cells = range(mention.start, mention.start + mention.length)
            if mention.entity_id in seen or any(cell in taken for cell in cells):
                continue
            taken.update(cells)
            seen.add(mention.entity_id)
            chosen.append(mention)

    # Every exact candidate ranks above every fuzzy one, so the exact ones are chosen first,
    # alone; a fuzzy candidate overlapping them, or of an entity they name, would lose.
    choose(index.exact_mentions(tokens, work))
    distinct, places = _fuzzy_windows(tokens, index.fuzzy_spans, index.longest, taken, work)
    matches: dict[str, list[tuple[_Entry, float]]] = {}
    for window, span in distinct.items():
        if work.spent():
            break
        work.windows += 1
        matches[window] = index.fuzzy_matches(window, span, seen, work)
    fuzzy = (
        Mention(entry.entity_id, entry.kind, entry.display, start, distinct[window], score)
        for start, window in places
        for entry, score in matches.get(window, ())
    )
    fuzzy = list(islice(fuzzy, MAX_FUZZY_CANDIDATES + 1))
    if len(fuzzy) > MAX_FUZZY_CANDIDATES:
        work.capped = True
        fuzzy.pop()
    choose(fuzzy)
    # A typo as close to several names as to the one taken ("topic-0034" on 1,000
    # "topic-00nnn"): the answer says which others it could have meant.
    rivals: dict[tuple, set[str]] = defaultdict(set)
    for candidate in fuzzy:
        rivals[candidate.start, candidate.length, candidate.score, candidate.kind].add(
            candidate.name
        )
    for index, mention in enumerate(chosen):
        if mention.score < 1.0:
            key = (mention.start, mention.length, mention.score, mention.kind)
            alike = tuple(sorted(rivals[key] - {mention.name}))
            if alike:
                chosen[index] = replace(mention, alike=alike)
    return sorted(chosen, key=lambda m: m.start)
