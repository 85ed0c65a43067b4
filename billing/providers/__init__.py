"""The billing provider: `local` (the default, no account needed) or `paddle` (Paddle
Billing's REST API), chosen by BILLING_PROVIDER."""

from django.conf import settings

from billing.providers.base import BillingProvider, ProviderError
from billing.providers.local import LocalProvider
from billing.providers.paddle import PaddleProvider

__all__ = ["BillingProvider", "ProviderError", "provider_get"]


def provider_get() -> BillingProvider:
    if settings.BILLING_PROVIDER == "paddle":
        return PaddleProvider()
    return LocalProvider()
