"""Templates see the member (`actor`) of the page's request."""

from accounts.middleware import page_actor


def actor(request):
    return {"actor": page_actor(request)}
