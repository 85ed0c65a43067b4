"""Sign-up, log-in, log-out, switching organization and the pages behind the links an admin
sends (invitation, join): server-rendered pages that set and clear the `__session` cookie."""

from urllib.parse import quote, urlsplit

from django.contrib import messages
from django.contrib.auth.password_validation import ValidationError as PasswordError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.forms import LoginForm, SignupForm
from accounts.invitations import (
    invitation_accept,
    invited_membership,
    join_login_proof,
    join_login_user_id,
    joining_membership,
    membership_join,
)
from accounts.middleware import begin_session, clear_session_cookie, page_actor, page_session
from accounts.models import Membership
from accounts.selectors import user_authenticate, user_has_pending_memberships, user_memberships
from accounts.services import (
    EMAIL_TAKEN,
    email_taken,
    session_end,
    user_signup,
)
from archsvc.api.errors import rate_limited_json, wants_page
from archsvc.api.ratelimit import login_rate_limit_hit, seconds_text
from archsvc.exceptions import ApiError, Forbidden, ResourceAlreadyExists

NO_ORGANIZATION_NOW = (
    "Your account is in no organization now: it was removed from the last one it was in. "
    "Ask an admin of your organization to add you again, or start an organization of your "
    "own: sign up with this e-mail and password."
)
NO_ORGANIZATION_YET = (
    "Your account is in no organization yet: open the join link an admin of the organization "
    "sent you, and log in there."
)


def _next_url(request) -> str:
    """Where `next` asks to go after logging in: a path of this site, else the projects (a bare
    word went to redirect() as a URL name, a 500)."""
    target = request.POST.get("next") or request.GET.get("next") or "/"
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


def _too_many(request, template: str, form, retry_after: int) -> HttpResponse:
    if not wants_page(request):  # a script posting the form: RateLimitError (interface §11)
        return rate_limited_json("Too many attempts; retry later.", retry_after)
    form.add_error(None, f"Too many attempts. Try again in {seconds_text(retry_after)}.")
    context = {"form": form, "next": _next_url(request), "joining": _join_of_next(request)}
    response = render(request, template, context, status=429)
    response["Retry-After"] = str(retry_after)
    return response


def _login_limited(request) -> int | None:
    return login_rate_limit_hit(request)  # one budget with Django admin's log-in


@require_http_methods(["GET", "POST"])
def login_view(request):
    if request.method == "GET":
        if page_actor(request):
            return redirect(_next_url(request))
        joining = _join_of_next(request)
        form = LoginForm(initial={"email": joining.user.email} if joining else None)
        return render(
            request,
            "accounts/login.html",
            {"form": form, "next": _next_url(request), "joining": joining},
        )
    form = LoginForm(request.POST)
    retry_after = _login_limited(request)
    if retry_after:
        return _too_many(request, "accounts/login.html", form, retry_after)
    if form.is_valid():
        user = user_authenticate(
            email=form.cleaned_data["email"], password=form.cleaned_data["password"]
        )
        membership = user_memberships(user_id=user.pk).first() if user else None
        if membership is not None:
            response = redirect(_next_url(request))
            begin_session(request, response, membership)
            return response
        if user is not None:
            # The password is right, but the account is in no organization to log in to: it
            # may be here to join one (its join link sent it to log in).
            pending = _pending_membership_of_next(request, user_id=user.pk)
            if pending is not None:
                return _join_page(
                    request,
                    pending,
                    action=_next_url(request),
                    proof=join_login_proof(membership=pending),
                )
        if user is not None and user_has_pending_memberships(user_id=user.pk):
            form.add_error(None, NO_ORGANIZATION_YET)
        elif user is not None:  # removed from the last organization it was in
            form.add_error(None, NO_ORGANIZATION_NOW)
        else:
            form.add_error(None, "That e-mail and password do not match an account.")
            form.mismatch = True  # the password box is marked wrong (only then: it was right)
    context = {"form": form, "next": _next_url(request), "joining": _join_of_next(request)}
    return render(request, "accounts/login.html", context, status=400)


@require_http_methods(["GET", "POST"])
def signup_view(request):
    if request.method == "GET":
        return render(request, "accounts/signup.html", {"form": SignupForm()})
    form = SignupForm(request.POST)
    retry_after = _login_limited(request)
    if retry_after:
        return _too_many(request, "accounts/signup.html", form, retry_after)
    if form.is_valid():
        try:
            membership = user_signup(
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password"],
                organization_name=form.cleaned_data["organization"],
            )
        except ResourceAlreadyExists as exc:
            form.add_error("email", exc.message)
        except PasswordError as exc:
            form.add_error("password", exc)
        else:
            response = redirect("/")
            begin_session(request, response, membership)
            return response
    elif "email" in form.cleaned_data and email_taken(email=form.cleaned_data["email"]):
        form.add_error("email", EMAIL_TAKEN)  # with the other problems, not after them
    return render(request, "accounts/signup.html", {"form": form}, status=400)


@require_http_methods(["GET", "POST"])
def logout_view(request):
    if request.method == "GET":
        return render(request, "accounts/logout.html")
    session = page_session(request)
    if session is not None:
        session_end(session_id=str(session.pk))
    request.archsvc_session_cleared = True
    messages.success(request, "You are logged out.")
    response = redirect("/accounts/login/")
    clear_session_cookie(response)
    return response


@require_http_methods(["POST"])
def switch_organization_view(request):
    """A member of several organizations moves the session to another one."""
    session = page_session(request)
    if session is None:
        return redirect("/accounts/login/")
    # only organizations they have joined: a pending membership grants nothing
    target = (
        user_memberships(user_id=session.membership.user_id)
        .filter(organization__slug=request.POST.get("organization", ""))
        .first()
    )
    if target is None:
        return redirect("/")
    session_end(session_id=str(session.pk))
    request.archsvc_session_cleared = True
    response = redirect("/")
    begin_session(request, response, target)
    return response


@never_cache  # the link is a credential: no copy kept by a browser or proxy
@require_http_methods(["GET", "POST"])
def welcome_view(request, token: str):
    """An invited member chooses their password, then is logged in to the organization
    that invited them."""
    membership = invited_membership(token=token)
    if membership is None:
        return render(request, "accounts/welcome_expired.html", status=404)
    error = None
    if request.method == "POST":
        password = request.POST.get("password", "")
        if password != request.POST.get("password2", ""):
            error = "The two passwords differ."
        else:
            try:
                membership = invitation_accept(token=token, password=password)
            except PasswordError as exc:
                error = " ".join(exc.messages)
            except ApiError:
                return render(request, "accounts/welcome_expired.html", status=404)
            else:
                response = redirect("/")
                begin_session(request, response, membership)
                return response
    return render(
        request,
        "accounts/welcome.html",
        {
            "email": membership.user.email,
            "organization": membership.organization.name,
            "error": error,
        },
        status=400 if error else 200,
    )


def _join_of_next(request) -> Membership | None:
    """The pending membership whose valid join link the log-in's `next` is, or None: the log-in
    page then says who to log in as, and to join what."""
    try:
        match = resolve(urlsplit(_next_url(request)).path)
    except Resolver404:
        return None
    if match.url_name != "join":
        return None
    return joining_membership(token=match.kwargs["token"])


def _pending_membership_of_next(request, *, user_id: int) -> Membership | None:
    """The user's pending membership whose join link the log-in's `next` is, or None."""
    membership = _join_of_next(request)
    return membership if membership is not None and membership.user_id == user_id else None


def _join_page(request, membership: Membership, *, action: str, proof: str = ""):
    """What the organization asks, and the button that accepts (posted to `action`, the join
    link's path)."""
    return render(
        request,
        "accounts/join.html",
        {
            "email": membership.user.email,
            "organization": membership.organization.name,
            "role": membership.role,
            "current": None if proof else page_actor(request),
            "proof": proof,
            "action": action,
        },
    )


@never_cache  # the link is a credential: no copy kept by a browser or proxy
@require_http_methods(["GET", "POST"])
def join_view(request, token: str):
    """An existing account accepts a membership and moves to that organization: it takes both
    the link and being logged in to the invited account (addresses are never verified)."""
    membership = joining_membership(token=token)
    if membership is None:
        return render(request, "accounts/join_expired.html", status=404)
    session = page_session(request)
    user_id = None
    if request.method == "POST":
        # someone with no organization yet, who just gave their password at the log-in
        user_id = join_login_user_id(proof=request.POST.get("proof", ""), membership=membership)
    if user_id is None and session is not None:
        user_id = session.membership.user_id
    if user_id is None:
        return redirect(f"/accounts/login/?next={quote(request.path)}")
    if user_id != membership.user_id:
        return render(request, "accounts/join_other_account.html", status=403)
    if request.method == "GET":
        return _join_page(request, membership, action=request.path)
    try:
        membership = membership_join(token=token, user_id=user_id)
    except Forbidden:
        return render(request, "accounts/join_other_account.html", status=403)
    except ApiError:
        return render(request, "accounts/join_expired.html", status=404)
    if session is not None:
        session_end(session_id=str(session.pk))
    request.archsvc_session_cleared = True
    messages.success(request, f"You joined {membership.organization.name}.")
    response = redirect("/")
    begin_session(request, response, membership)
    return response
