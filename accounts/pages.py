"""The guard of a member's page: logged in, else the log-in page (as Healthchecks'
`@login_required`); the view then receives the member as its second argument."""

from functools import wraps

from accounts.middleware import login_redirect, page_actor


def member_page(view=None, *, login=login_redirect):
    """`@member_page` or `@member_page(login=...)`: `view(request, actor, ...)`, else
    `login(request)`. Put it under `require_http_methods`: a wrong method is a 405 first."""

    def decorate(view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            actor = page_actor(request)
            if actor is None:
                return login(request)
            return view(request, actor, *args, **kwargs)

        return guarded

    return decorate if view is None else decorate(view)
