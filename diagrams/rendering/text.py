"""Label measurement with Helvetica's advance widths (shared by Arial and Liberation Sans), the
font family the SVG names, so a label measured here fits the box drawn for it."""

import re
import unicodedata

# Printable ASCII, 32 (space) to 126 (~), in 1/1000 em, from the Adobe AFM files.
_ASCII_WIDTHS = [
    278,
    278,
    355,
    556,
    556,
    889,
    667,
    191,
    333,
    333,
    389,
    584,
    278,
    333,
    278,
    278,  # sp-/
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    556,
    278,
    278,
    584,
    584,
    584,
    556,  # 0-?
    1015,
    667,
    667,
    722,
    722,
    667,
    611,
    778,
    722,
    278,
    500,
    667,
    556,
    833,
    722,
    778,  # @-O
    667,
    778,
    722,
    667,
    611,
    722,
    667,
    944,
    667,
    667,
    611,
    278,
    278,
    278,
    469,
    556,  # P-_
    333,
    556,
    556,
    500,
    556,
    556,
    278,
    556,
    556,
    222,
    222,
    500,
    222,
    833,
    556,
    556,  # `-o
    556,
    556,
    333,
    500,
    278,
    556,
    500,
    722,
    500,
    500,
    500,
    334,
    260,
    334,
    584,  # p-~
]
_DEFAULT_WIDTH = 556  # an average lower-case letter, for other Latin-like characters
_WIDE_WIDTH = 1000  # East Asian wide and full-width characters
# Emoji: colour emoji fonts draw them 1.1-1.2 em wide (measured in Chromium with Noto Color
# Emoji: a line of 60 grinning faces, 221-224 px in a box for 204)
_EMOJI_WIDTH = 1200

FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', sans-serif"


def _char_width(char: str) -> int:
    code = ord(char)
    if 32 <= code <= 126:
        return _ASCII_WIDTHS[code - 32]
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf", "Cc"):
        return 0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        if code >= 0x1F000 and unicodedata.category(char) == "So":
            return _EMOJI_WIDTH
        return _WIDE_WIDTH
    base = unicodedata.normalize("NFKD", char)[:1]
    if base and 32 <= ord(base) <= 126:
        return _ASCII_WIDTHS[ord(base) - 32]
    return _DEFAULT_WIDTH


_WIDTHS: dict[str, int] = {chr(32 + i): w for i, w in enumerate(_ASCII_WIDTHS)}


# what makes several characters one emoji: a joiner, the emoji presentation selector, a skin
# tone, a flag's letters, a tag
_SEQUENCE = re.compile(
    "[\u200d\ufe0f\U0001f3fb-\U0001f3ff\U0001f1e6-\U0001f1ff\U000e0020-\U000e007f]"
)


def _units(text: str) -> int:
    """Advance width in 1/1000 em (each character measured once, then remembered). An emoji
    sequence is one emoji wide (👩‍💻 is drawn as one; ❤️ as an emoji, not a text heart)."""
    if _SEQUENCE.search(text):
        total = 0
        for cluster in clusters(text):
            if len(cluster) > 1 and _SEQUENCE.search(cluster):
                total += _EMOJI_WIDTH
            else:
                total += _plain_units(cluster)
        return total
    return _plain_units(text)


def _plain_units(text: str) -> int:
    widths = _WIDTHS
    try:
        return sum(map(widths.__getitem__, text))
    except KeyError:  # a character not measured yet
        pass
    total = 0
    for char in text:
        width = widths.get(char)
        if width is None:
            width = widths[char] = _char_width(char)
        total += width
    return total


def text_width(text: str, font_size: float) -> float:
    """The rendered width of `text` at `font_size` pixels."""
    return _units(text) * font_size / 1000


_ZWJ = "\u200d"


def _joins(previous: str, char: str, cluster: str) -> bool:
    """Whether `char` belongs to the character before it: a grapheme cluster (UAX #29) near
    enough for cutting labels without splitting a flag, an emoji sequence or a conjunct."""
    code = ord(char)
    if char == _ZWJ or previous == _ZWJ:
        return True
    if unicodedata.category(char) in ("Mn", "Mc", "Me"):
        return True
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # variation selectors
        return True
    if 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F:  # skin tones, emoji tags
        return True
    if 0x1F1E6 <= code <= 0x1F1FF:  # regional indicators pair into flags
        indicators = len(cluster) == 1 and 0x1F1E6 <= ord(cluster) <= 0x1F1FF
        return indicators
    return unicodedata.combining(previous) == 9 and unicodedata.category(char) == "Lo"


def clusters(text: str) -> list[str]:
    """`text` in the pieces a reader sees as one character each."""
    pieces: list[str] = []
    for char in text:
        if pieces and _joins(pieces[-1][-1], char, pieces[-1]):
            pieces[-1] += char
        else:
            pieces.append(char)
    return pieces


def _break_points(word: str, font_size: float, max_width: float) -> list[str]:
    """A word wider than a line, cut into pieces that fit, between characters as a reader
    sees them (`clusters`)."""
    pieces, current = [], ""
    for char in clusters(word):
        if current and text_width(current + char, font_size) > max_width:
            pieces.append(current)
            current = char
        else:
            current += char
    if current:
        pieces.append(current)
    return pieces


def _tokens(text: str) -> list[str]:
    """Words that keep their trailing separator, so lines may break after `.`, `-`, `_`, `/`
    and spaces (topic names like `orders.payment-events.v2` wrap at their dots)."""
    tokens, current = [], ""
    for char in text:
        current += char
        if char in " .-_/:":
            tokens.append(current)
            current = ""
    if current:
        tokens.append(current)
    return tokens


def wrap_label(text: str, *, font_size: float, max_width: float, max_lines: int) -> list[str]:
    """The label in at most `max_lines` lines no wider than `max_width`; the last line ends
    with an ellipsis when the text does not fit."""
    text = " ".join(text.split()) or " "
    if _units(text) * font_size / 1000 <= max_width:
        return [text]
    limit = max_width * 1000 / font_size  # in font units
    space = _WIDTHS[" "]
    lines: list[str] = []
    current, current_units = "", 0  # units of `current` without a trailing space
    for token in _tokens(text):
        bare = token.rstrip()
        token_units = _units(bare)
        trailing = space if current.endswith(" ") else 0
        if current_units + trailing + token_units <= limit:
            current += token
            current_units += trailing + token_units
            continue
        if current:
            lines.append(current.rstrip())
            current, current_units = "", 0
        if token_units <= limit:
            current, current_units = token, token_units
        else:
            *full, current = _break_points(token, font_size, max_width)
            lines.extend(full)
            current_units = _units(current.rstrip())
    if current.strip() or not lines:
        lines.append(current.rstrip())
    if len(lines) > max_lines:
        kept = lines[:max_lines]
        last = clusters(kept[-1])
        while last and text_width("".join(last) + "…", font_size) > max_width:
            last.pop()
        kept[-1] = "".join(last).rstrip() + "…"
        lines = kept
    return lines


def counted(count: int, word: str, plural: str | None = None) -> str:
    """1 service, 3 services, 1,575 cycles, 2 categories: a count in words, as the drawing's
    name and the assistant's replies say it."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"
