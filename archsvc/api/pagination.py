"""The ProjectPage envelope: data, page (0-based), size, total, totalPages, first, last."""

import math


def page_envelope(*, data: list, page: int, size: int, total: int) -> dict:
    total_pages = math.ceil(total / size) if total else 0
    return {
        "data": data,
        "page": page,
        "size": size,
        "total": total,
        "totalPages": total_pages,
        "first": page == 0,
        "last": page >= total_pages - 1,
    }
