"""A password's upper bound wherever one is chosen (AUTH_PASSWORD_VALIDATORS): the log-in
form takes at most PASSWORD_MAX_LENGTH, so a longer one could never be used."""

from django.core.exceptions import ValidationError

PASSWORD_MAX_LENGTH = 200


class MaximumLengthValidator:
    def __init__(self, max_length: int = PASSWORD_MAX_LENGTH):
        self.max_length = max_length

    def validate(self, password, user=None):
        if len(password) > self.max_length:
            raise ValidationError(
                f"This password is too long: {self.max_length} characters at most.",
                code="password_too_long",
            )

    def get_help_text(self):
        return f"Your password can have at most {self.max_length} characters."
