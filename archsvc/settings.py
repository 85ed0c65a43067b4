"""archsvc settings: every value comes from the environment, with defaults that run on one
machine with no other service (SQLite, an in-process cache). See docs/operations.md."""

import os
import warnings
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value not in (None, "") else default


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
HTTPS = env_bool("HTTPS", False)
_DEV_SECRET = "dev-insecure-secret-key-change-me-0123456789abcdefghijklmnopqrstuvwxyz"
SECRET_KEY = os.environ.get("SECRET_KEY") or _DEV_SECRET
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_ratelimit",
    "accounts",
    "diagrams",
    "billing",
]

MIDDLEWARE = [
    "archsvc.middleware.RequestIdMiddleware",
    "archsvc.health.HealthzMiddleware",
    "archsvc.api.ratelimit.RateLimitHeadersMiddleware",
    "archsvc.render_budget.RenderBudgetMiddleware",
    "archsvc.middleware.CompleteBodyMiddleware",
    "archsvc.middleware.RefuseNulMiddleware",
    "archsvc.middleware.HeadAsGetMiddleware",
    "archsvc.middleware.PagesCspMiddleware",
    "archsvc.compression.CompressPagesMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # outside CommonMiddleware, whose Host check answers a 400 the inner ones never see
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.SessionTokenMiddleware",
    # after the CSRF check (process_view): a member's posts through the pages count against
    # their write budget, as their API writes do
    "accounts.middleware.PageWritesRateLimitMiddleware",
    "accounts.middleware.PagesNotStoredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "archsvc.urls"
WSGI_APPLICATION = "archsvc.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.actor",
            ],
        },
    },
]

# Database: SQLite in the project folder unless DATABASE_URL names another (postgres://...).
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        # off: the first query of each request reconnects once instead (archsvc/hotpath.py)
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", False),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # The hand-written hot-path statements (archsvc/hotpath.py) bind server-side; psycopg
    # prepares each after this many uses on a connection. The ORM binds client-side and
    # never prepares. Empty: nothing is prepared (a pooler that cannot keep prepared
    # statements; docs/operations.md).
    _prepare = os.environ.get("DB_PREPARE_THRESHOLD", "5")
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        int(_prepare) if _prepare.strip() else None
    )
    # Without it a server that accepts the connection and never answers (a partition, a
    # firewall dropping packets) held every worker until gunicorn killed it; libpq's timeout
    # covers the whole start-up, TCP to authentication. `?connect_timeout=` in DATABASE_URL
    # wins.
    DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", 3))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the threaded dev server write without "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Cache: Redis when REDIS_URL is set (shared by every worker and machine), else in-process.
REDIS_URL = os.environ.get("REDIS_URL", "")
CACHE_KEY_PREFIX = os.environ.get("CACHE_KEY_PREFIX", "archsvc")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "archsvc.cache.ReusingRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": CACHE_KEY_PREFIX,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "archsvc.cache.BoundedLocMemCache",
            "LOCATION": "archsvc",
            "KEY_PREFIX": CACHE_KEY_PREFIX,
            "OPTIONS": {
                "MAX_ENTRIES": 20000,
                "MAX_BYTES": env_int("LOCAL_CACHE_BYTES", 256 * 1024 * 1024),
            },
        }
    }

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    # not the account's own address, nor close to it ("demo@example.com" was accepted)
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator",
        "OPTIONS": {"user_attributes": ("email",)},
    },
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # as long as the log-in form takes (accounts/passwords.py)
    {"NAME": "accounts.passwords.MaximumLengthValidator"},
]
LOGIN_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Hashed names cached for a year, and gzip copies, made by collectstatic (archsvc/static.py)
STATIC_HASHED = env_bool("STATIC_HASHED", False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "archsvc.static.HashedStaticStorage"
        if STATIC_HASHED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_HASHED  # hashed: only what collectstatic wrote
WHITENOISE_AUTOREFRESH = DEBUG
# The service editor's form holds up to 500 topics each way (the API's MAX_TOPICS), four
# fields a row (name, category, owner, the stored topic it began as), 20 extras of two and
# the service's own fields: Django's 1,000 refused a form of some 250 topic rows with a bare
# 400 (TooManyFieldsSent), everything typed lost.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2 * 500 * 4 + 2 * 20 + 100

# Without collectstatic (development, tests) files come from the finders; no need to warn.
warnings.filterwarnings("ignore", message="No directory at")

# Security (interface §14). HTTPS=1 turns on everything that needs TLS.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_FAILURE_VIEW = "archsvc.api.views.csrf_failure"
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = 31536000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# The __session cookie (interface §2).
SESSION_COOKIE_NAME_JWT = "__session"
SESSION_IDLE_SECONDS = env_int("SESSION_IDLE_SECONDS", 43200)
# How often activity is written back to the session row (sliding expiry without a write
# on every request); never less often than every SESSION_IDLE_SECONDS / 2
# (accounts.selectors.session_needs_touch).
SESSION_TOUCH_SECONDS = env_int("SESSION_TOUCH_SECONDS", 60)
JWT_SIGNING_KEY = os.environ.get("JWT_SIGNING_KEY") or SECRET_KEY
MAX_AUTH_HEADER_BYTES = 4096

# Client IP for per-IP rate limits: REMOTE_ADDR, or the given X-Forwarded-For hop when the
# app runs behind trusted proxies (docs/operations.md).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)

# Rate limits (interface §11), counted in the default cache.
RATE_LIMIT_READ = os.environ.get("RATE_LIMIT_READ", "600/m")
RATE_LIMIT_WRITE = os.environ.get("RATE_LIMIT_WRITE", "120/m")
RATE_LIMIT_AI = os.environ.get("RATE_LIMIT_AI", "20/m")
RATE_LIMIT_PUBLIC = os.environ.get("RATE_LIMIT_PUBLIC", "120/m")
RATE_LIMIT_LOGIN = os.environ.get("RATE_LIMIT_LOGIN", "10/m")
RATE_LIMIT_ENABLED = env_bool("RATE_LIMIT_ENABLED", True)
RATELIMIT_USE_CACHE = "default"
RATELIMIT_FAIL_OPEN = True
# Django's own RedisCache is shared and increments atomically; django-ratelimit only lists
# third-party Redis backends as supported.
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
if not REDIS_URL:
    # One process with threads: the in-process cache is shared by all of them (interface §11).
    SILENCED_SYSTEM_CHECKS.append("django_ratelimit.E003")

# Plans (interface §4): each number can be changed through the environment.
PLANS = {
    "free": {
        "max_projects": env_int("PLAN_FREE_MAX_PROJECTS", 3),
        "ai_credits": env_int("PLAN_FREE_AI_CREDITS", 50),
    },
    "team": {
        "max_projects": env_int("PLAN_TEAM_MAX_PROJECTS", 25),
        "ai_credits": env_int("PLAN_TEAM_AI_CREDITS", 1000),
    },
    "business": {
        "max_projects": env_int("PLAN_BUSINESS_MAX_PROJECTS", 250),
        "ai_credits": env_int("PLAN_BUSINESS_AI_CREDITS", 10000),
    },
}

# Billing (docs/billing.md). BILLING_PROVIDER: local (default, no account) or paddle, in
# any case. Anything else stops the server from starting: a mistyped "Paddle" had fallen
# back to the local provider, whose portal gives any plan away, and the deploy check
# (which warns of `local` only) said nothing.
BILLING_PROVIDER = os.environ.get("BILLING_PROVIDER", "").strip().lower() or "local"
if BILLING_PROVIDER not in {"local", "paddle"}:
    raise ImproperlyConfigured(
        f"BILLING_PROVIDER must be local or paddle, not {os.environ['BILLING_PROVIDER']!r}."
    )
# A production deployment that sells no plans says so (check --deploy warns otherwise).
if env_bool("BILLING_LOCAL_IN_PRODUCTION", False):
    SILENCED_SYSTEM_CHECKS.append("archsvc.W002")
# With paddle: the page of your site that runs Paddle's checkout (sent ?organization=<slug>).
BILLING_CHECKOUT_URL = os.environ.get("BILLING_CHECKOUT_URL", "")
# The webhook's signing secrets, comma-separated (several while rotating).
BILLING_WEBHOOK_SECRETS = env_list("BILLING_WEBHOOK_SECRETS", "")
BILLING_WEBHOOK_TOLERANCE_SECONDS = env_int("BILLING_WEBHOOK_TOLERANCE_SECONDS", 300)
PADDLE_API_BASE_URL = os.environ.get("PADDLE_API_BASE_URL", "https://api.paddle.com")
PADDLE_API_KEY = os.environ.get("PADDLE_API_KEY", "")
PADDLE_TIMEOUT_SECONDS = env_int("PADDLE_TIMEOUT_SECONDS", 10)
PADDLE_PRICES = {
    f"{plan}:{cycle}": os.environ.get(f"PADDLE_PRICE_{plan.upper()}_{cycle.upper()}", "")
    for plan in ("team", "business")
    for cycle in ("monthly", "annual")
}

# Graph renders are kept this long in the shared cache (0: not cached). Keys change with
# every write to the project and every deploy of new rendering code (docs/operations.md).
RENDER_CACHE_SECONDS = env_int("RENDER_CACHE_SECONDS", 86400)
# Each worker also keeps its most recently used renders in memory, up to this many bytes.
RENDER_LOCAL_CACHE_BYTES = env_int("RENDER_LOCAL_CACHE_BYTES", 32 * 1024 * 1024)
# A render missing from the cache is made by one worker; the others asking for it meanwhile
# wait up to this long for its result before rendering it themselves (0: every worker that
# misses renders). The lock a render holds expires after RENDER_LOCK_SECONDS, in case its
# worker dies: keep it above the longest render and below the worker timeout.
RENDER_LOCK_WAIT_SECONDS = env_float("RENDER_LOCK_WAIT_SECONDS", 20.0)
# Seconds of rendering (cache misses) one organization's members and keys, or one client
# IP on share links, may cause per minute; past it, a read that would render is 429 until
# the minute is over (warm reads still answer). 0: no budget. (diagrams/render_cache.py)
RENDER_BUDGET_SECONDS = env_float("RENDER_BUDGET_SECONDS", 60.0)
# A shared page or embed inlines its graph up to this size; a bigger one (a few thousand
# services) is fetched by the page from the cached SVG, instead of being compressed anew
# inside the page on every anonymous view (diagrams/share_views.py, _page).
SHARE_INLINE_SVG_BYTES = env_int("SHARE_INLINE_SVG_BYTES", 1_000_000)
RENDER_LOCK_SECONDS = env_int("RENDER_LOCK_SECONDS", 25)
# How long an Idempotency-Key of a project's create or duplicate is remembered (its
# retries answer the project the first request made: archsvc/api/idempotency.py).
IDEMPOTENCY_SECONDS = env_int("IDEMPOTENCY_SECONDS", 86400)

# The assistant: the built-in analyst unless an OpenAI-compatible endpoint is configured.
ASSISTANT_BASE_URL = os.environ.get("ASSISTANT_BASE_URL", "")
ASSISTANT_MODEL = os.environ.get("ASSISTANT_MODEL", "gpt-4o-mini")
ASSISTANT_API_KEY = os.environ.get("ASSISTANT_API_KEY", "")
ASSISTANT_TIMEOUT_SECONDS = env_int("ASSISTANT_TIMEOUT_SECONDS", 20)
# Each worker keeps what the assistant read of the projects it was last asked about (graph,
# entities, history, name index: about 7.5 KB a service, a history event a twelfth of
# that) for the next question on the same state, up to this many services' worth in all; a
# project over half of it is not kept.
# 0: rebuilt for every question. (diagrams.assistant.project_context)
ASSISTANT_KEPT_SERVICES = env_int("ASSISTANT_KEPT_SERVICES", 8000)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiKeyAuthentication",
        "accounts.authentication.SessionCookieAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.authentication.IsActor"],
    "DEFAULT_THROTTLE_CLASSES": ["archsvc.api.ratelimit.ActorRateThrottle"],
    "DEFAULT_PARSER_CLASSES": ["archsvc.api.parsers.StrictJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "archsvc.api.negotiation.IgnoreClientNegotiation",
    "DEFAULT_METADATA_CLASS": "archsvc.api.metadata.ApiMetadata",
    "EXCEPTION_HANDLER": "archsvc.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "archsvc.api.schema.ArchsvcAutoSchema",
    "UNAUTHENTICATED_USER": None,
    "UNAUTHENTICATED_TOKEN": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "archsvc API",
    "DESCRIPTION": "Architecture diagrams of microservices: projects, services with full "
    "history, graph renderings, sharing, billing and the assistant.\n\n"
    "**Authentication.** Scripts and CI jobs send `Authorization: Bearer <API key>`; an "
    "admin of the organization makes keys in the app under Settings, API keys. On this "
    "page, *Try it out* uses your log-in to the app "
    "when you are logged in; otherwise choose *Authorize* and paste a key.\n\n"
    "Errors are one JSON shape (`status`, `code`, `message`, and `violations` naming each "
    "bad field); a 429 says when to retry in `Retry-After`. Every response says where "
    "the caller's budget stands in `RateLimit-Limit`, `RateLimit-Remaining` and "
    "`RateLimit-Reset` (seconds); reads, writes and questions to the assistant have "
    f"separate budgets (on this server {RATE_LIMIT_READ}, {RATE_LIMIT_WRITE} and "
    f"{RATE_LIMIT_AI} per caller: `/m` is a minute). Waiting `Retry-After` (or "
    "`RateLimit-Reset`) seconds is enough.\n\n"
    "[← Back to archsvc](/)",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # The docs page lists the groups in this order (where a reader starts), not A to Z.
    "TAGS": [
        {
            "name": "projects",
            "description": "Projects of the organization: list, create, "
            "update, archive, duplicate, delete.",
        },
        {
            "name": "services",
            "description": "Services of a project, their topics and "
            "extras; every write is kept, and `at` reads any past state.",
        },
        {
            "name": "history",
            "description": "What changed, when and by whom; the diff of each change.",
        },
        {
            "name": "graph",
            "description": "The project as a graph: JSON with coordinates, "
            "a Mermaid flowchart, an SVG.",
        },
        {
            "name": "sharing",
            "description": "A read-only link to a project's graph, "
            "replaced or revoked at any time.",
        },
        {"name": "pinned", "description": "Projects the caller keeps at the top."},
        {
            "name": "assistant",
            "description": "Questions about the architecture, answered "
            "from its services and history (one AI credit each).",
        },
        {"name": "billing", "description": "Plan, subscription, limits and AI credits."},
    ],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "archsvc.api.schema.add_common_responses",
        "archsvc.api.schema.spec_path_parameters",
        "archsvc.api.schema.request_bodies",
        "diagrams.api.schema.request_limits",
    ],
    "ENUM_NAME_OVERRIDES": {
        "ActorType": "diagrams.models.projects.ACTOR_TYPES",
        "GraphNodeType": "diagrams.api.serializers.GRAPH_NODE_TYPES",
        "GraphEdgeKind": "diagrams.api.serializers.GRAPH_EDGE_KINDS",
    },
}

LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "archsvc.middleware.RequestIdFilter"},
        "reason_logged": {"()": "archsvc.logging.ReasonLoggedFilter"},
    },
    "formatters": {"json": {"()": "archsvc.logging.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own default gave this logger a plain-text handler when DEBUG is on: each
        # line of it (the dev server's "Watching for file changes", a 500's traceback) was
        # written twice, plain and then as JSON through the root
        "django": {"handlers": [], "propagate": True},
        "django.server": {"level": "WARNING"},
        # a response whose reason was logged already (archsvc/logging.py) is not logged
        # again, without it, as "Service Unavailable: /healthz" at ERROR
        "django.request": {"filters": ["reason_logged"]},
    },
}
