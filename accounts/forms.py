"""The log-in and sign-up forms (interface §2 names their fields)."""

from django import forms
from django.contrib.auth.password_validation import validate_password

from accounts.models import User
from accounts.passwords import PASSWORD_MAX_LENGTH
from archsvc.api.serializers import is_visible, text_problem


class LoginForm(forms.Form):
    email = forms.EmailField(max_length=254)
    password = forms.CharField(max_length=PASSWORD_MAX_LENGTH, widget=forms.PasswordInput)


class SignupForm(forms.Form):
    email = forms.EmailField(max_length=254)
    password = forms.CharField(
        max_length=PASSWORD_MAX_LENGTH,
        widget=forms.PasswordInput,
        help_text="At least 8 characters.",
    )
    organization = forms.CharField(
        max_length=100,
        min_length=2,
        label="Organization name",
        help_text="Your team or company; you can invite others later.",
    )

    def clean_password(self) -> str:
        """The password rules, checked with the other fields so that every problem shows at
        once: not too close to the address either (user_signup checks again)."""
        password = self.cleaned_data["password"]
        email = self.cleaned_data.get("email")
        validate_password(password, User(email=email) if email else None)
        return password

    def clean_organization(self) -> str:
        name = self.cleaned_data["organization"]
        if not is_visible(name):
            raise forms.ValidationError("Enter a name with a visible character.")
        problem = text_problem(name)
        if problem:
            raise forms.ValidationError(problem)
        return name
