"""Template filters for text: how it wraps on narrow screens, how numbers read."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()

_AFTER = re.compile(r"([./_:=-])(?=\S)")


@register.filter
def breaks(value) -> str:
    """The text escaped, with a line-break opportunity (<wbr>) after each dot, slash,
    underscore, colon, equals sign and hyphen: `orders.confirmed` wraps as `orders.` /
    `confirmed` in a narrow cell instead of `orders.confir` / `med`."""
    # safe: the text is escaped first; the only markup added is <wbr>
    return mark_safe(_AFTER.sub(r"\1<wbr>", str(escape(value))))  # noqa: S308


@register.filter
def thousands(value: int) -> str:
    """3000 as "3,000", as the page's script writes counts (toLocaleString("en"))."""
    return f"{value:,}"
