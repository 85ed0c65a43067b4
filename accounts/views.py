"""Sign-up, log-in, log-out and switching organization: plain server-rendered pages that
set and clear the `__session` cookie."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.password_validation import ValidationError as PasswordError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.forms import LoginForm, SignupForm
from accounts.middleware import clear_session_cookie, page_actor, page_session, set_session_cookie
from accounts.selectors import user_authenticate, user_memberships
from accounts.services import (
    EMAIL_TAKEN,
    email_taken,
    invitation_accept,
    invited_membership,
    session_end,
    session_start,
    user_signup,
)
from archsvc.api.errors import ApiError, ResourceAlreadyExists
from archsvc.api.ratelimit import client_ip, rate_limit_hit, seconds_text


def _next_url(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/"
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


def _too_many(request, template: str, form, retry_after: int) -> HttpResponse:
    form.add_error(None, f"Too many attempts. Try again in {seconds_text(retry_after)}.")
    response = render(request, template, {"form": form, "next": _next_url(request)}, status=429)
    response["Retry-After"] = str(retry_after)
    return response


def _login_limited(request) -> int | None:
    return rate_limit_hit(
        request, group="login", key=f"ip:{client_ip(request)}", rate=settings.RATE_LIMIT_LOGIN
    )


@require_http_methods(["GET", "POST"])
def login_view(request):
    if request.method == "GET":
        if page_actor(request):
            return redirect(_next_url(request))
        return render(
            request, "accounts/login.html", {"form": LoginForm(), "next": _next_url(request)}
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
            set_session_cookie(response, session_start(membership=membership))
            return response
        form.add_error(None, "That e-mail and password do not match an account.")
    return render(
        request, "accounts/login.html", {"form": form, "next": _next_url(request)}, status=400
    )


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
            set_session_cookie(response, session_start(membership=membership))
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
    set_session_cookie(response, session_start(membership=target))
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
                set_session_cookie(response, session_start(membership=membership))
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
