"""The typed errors of the interface (docs/interface.md §5), each with its status, code and
default message; this module imports nothing of ours, so every layer can raise them."""


class ApiError(Exception):
    """An error with the spec's status and code. Subclasses fix both."""

    status = 400
    code = "bad_request"
    message = "Bad request."

    def __init__(self, message: str | None = None, *, details: str | None = None):
        super().__init__(message or self.message)
        self.message = message or self.message
        self.details = details


class BadRequest(ApiError):
    status, code, message = 400, "bad_request", "The request is invalid."


class InvalidBillingCycle(ApiError):
    status, code, message = 400, "invalid_billing_cycle", "billingCycle must be monthly or annual."


NO_CREDENTIALS = (
    "Authentication required: send `Authorization: Bearer <API key>` "
    "(an organization's admin makes keys under Settings, API keys)."
)


class Unauthorized(ApiError):
    status, code, message = 401, "unauthorized", NO_CREDENTIALS


class PaymentRequired(ApiError):
    status, code, message = 402, "payment_required", "This needs a paid plan."


class ProjectLimitReached(ApiError):
    status, code, message = 402, "project_limit_reached", "The plan's project limit is reached."


class InsufficientAiCredits(ApiError):
    status, code, message = 402, "insufficient_ai_credits", "No AI credits left."


class Forbidden(ApiError):
    status, code, message = 403, "forbidden", "You are not allowed to do this."


class NotFound(ApiError):
    status, code, message = 404, "not_found", "Not found."


class ProjectNotFound(NotFound):
    code, message = "project_not_found", "Project not found."


class ServiceNotFound(NotFound):
    code, message = "service_not_found", "Service not found."


class SubscriptionNotFound(NotFound):
    code, message = "subscription_not_found", "The organization has no subscription."


class CustomerNotFound(NotFound):
    code, message = "customer_not_found", "The subscription has no billing customer."


class PublicShareTokenNotFound(NotFound):
    code, message = "public_share_token_not_found", "The project has no public share token."


class Conflict(ApiError):
    status, code, message = 409, "conflict", "A concurrent update won; retry the request."


class ServiceNameConflict(ApiError):
    status, code, message = 409, "service_name_conflict", "A service with this name exists."


class ResourceAlreadyExists(ApiError):
    status, code, message = 409, "resource_already_exists", "The resource already exists."


class ServiceUnavailable(ApiError):
    status, code, message = 503, "internal_error", "The service is briefly unavailable; retry."
