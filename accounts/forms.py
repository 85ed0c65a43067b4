"""The log-in and sign-up forms (CONTRACT 2 names their fields)."""

from django import forms


class LoginForm(forms.Form):
    email = forms.EmailField(max_length=254)
    password = forms.CharField(max_length=200, widget=forms.PasswordInput)


class SignupForm(forms.Form):
    email = forms.EmailField(max_length=254)
    password = forms.CharField(
        max_length=200, widget=forms.PasswordInput, help_text="At least 8 characters."
    )
    organization = forms.CharField(
        max_length=100,
        min_length=2,
        label="Organization name",
        help_text="Your team or company; you can invite others later.",
    )
