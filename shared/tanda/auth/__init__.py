"""Authentication: the shared API key + partner JWT (V2-01), the verified admin (PG-1) and the
``/v1`` API keys (ASK-01). Pure — no web framework; ``tanda.api.security`` adapts it to FastAPI.

Importing this package is cheap: PyJWT and ``cryptography`` load only when an
:class:`Authenticator` is built.
"""

from tanda.auth.api_keys import SharedKeyRing, V1KeyRing, hash_api_key
from tanda.auth.authenticator import NOT_CONFIGURED_MESSAGE, Authenticator, Credentials
from tanda.auth.config import AuthConfigError
from tanda.auth.principal import ADMIN_ROLE, Principal
from tanda.auth.rate_limit import AdminRateLimited, TokenBucket

__all__ = [
    "ADMIN_ROLE",
    "NOT_CONFIGURED_MESSAGE",
    "AdminRateLimited",
    "AuthConfigError",
    "Authenticator",
    "Credentials",
    "Principal",
    "SharedKeyRing",
    "TokenBucket",
    "V1KeyRing",
    "hash_api_key",
]
