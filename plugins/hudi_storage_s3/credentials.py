"""The credentials an S3 client signs with, from ``credentials_provider``, through boto3's own providers.

Imported only when a client is built (it loads botocore).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from botocore.credentials import CredentialProvider, CredentialResolver, Credentials

from hudi_framework import S3CredentialsSource

if TYPE_CHECKING:
    import botocore.session

    from hudi_storage_s3.options import S3StorageOptions

__all__ = ["install_credential_chain"]

_Src = S3CredentialsSource
#: botocore's providers (``CredentialProvider.METHOD``) behind each source that reads its
#: credentials where the request is made, in botocore's own order.
_BOTOCORE_PROVIDERS: Final = {
    _Src.ENVIRONMENT: ("env",),
    _Src.INSTANCE: ("container-role", "iam-role"),
    _Src.WEB_IDENTITY: ("assume-role-with-web-identity",),
}


class _Static(CredentialProvider):
    """The configured key, as one link of a chain (a static source after a dynamic one)."""

    METHOD = "static"

    def __init__(self, access_key: str, secret_key: str, token: str | None) -> None:
        super().__init__()
        self._credentials = Credentials(access_key, secret_key, token, method=self.METHOD)

    def load(self) -> Credentials:
        return self._credentials


def install_credential_chain(session: botocore.session.Session, options: S3StorageOptions) -> None:
    """Make ``session`` find credentials through ``options.credentials_provider`` only, in order.

    Static sources without their keys are skipped (S3A's chain skips them too); ``anonymous`` gets
    an empty chain, so nothing is looked up. ``default`` is botocore's whole default chain.
    """
    default: CredentialResolver = session.get_component("credential_provider")
    providers: list[CredentialProvider] = []
    for source in options.credentials_provider:
        static = options.static_credentials(source)
        if static is not None:
            providers.append(_Static(*static))
        elif source is _Src.DEFAULT:
            providers.extend(default.providers)
        else:
            providers.extend(default.get_provider(name) for name in _BOTOCORE_PROVIDERS.get(source, ()))
    session.register_component("credential_provider", CredentialResolver(providers))
