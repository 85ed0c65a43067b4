"""Label measurement with a font-metrics table: the advance widths of Helvetica (Arial and
Liberation Sans share them), in 1/1000 em, from the Adobe AFM files. The SVG names that
font family, so a label measured here fits the box drawn for it."""

import unicodedata

# Printable ASCII, 32 (space) to 126 (~).
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

FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', sans-serif"


def _char_width(char: str) -> int:
    code = ord(char)
    if 32 <= code <= 126:
        return _ASCII_WIDTHS[code - 32]
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf", "Cc"):
        return 0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return _WIDE_WIDTH
    base = unicodedata.normalize("NFKD", char)[:1]
    if base and 32 <= ord(base) <= 126:
        return _ASCII_WIDTHS[ord(base) - 32]
    return _DEFAULT_WIDTH


_WIDTHS: dict[str, int] = {chr(32 + i): w for i, w in enumerate(_ASCII_WIDTHS)}


def _units(text: str) -> int:
    """Advance width in 1/1000 em (each character measured once, then remembered)."""
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


def _break_points(word: str, font_size: float, max_width: float) -> list[str]:
    """A word wider than a line, cut into pieces that fit."""
    pieces, current = [], ""
    for char in word:
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
        last = kept[-1]
        while last and text_width(last + "…", font_size) > max_width:
            last = last[:-1]
        kept[-1] = last.rstrip() + "…"
        lines = kept
    return lines


def counted(count: int, word: str, plural: str | None = None) -> str:
    """1 service, 3 services, 1,575 cycles, 2 categories: a count in words, as the drawing's
    name and the assistant's replies say it."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"
