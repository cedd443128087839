"""JWTVerifier against real keys and a real JWKS endpoint on 127.0.0.1: what it accepts, what it
reads from a token, how it follows key rotation without letting bad `kid`s hammer the issuer,
and how it fails when the issuer is down, slow or broken."""

from __future__ import annotations

import time
import uuid

import anyio
import pytest
from jwtkit import ISSUER, RESOURCE, JWKSApp, SigningKey, closed_port, serve, silent_port

from mcp.server.auth.provider import InsufficientScopeError, InvalidTokenError
from mcp.server.auth.verifiers import JWTVerifier

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]


def verifier(jwks_url: str, **options: object) -> JWTVerifier:
    return JWTVerifier(issuer=ISSUER, jwks_uri=jwks_url, audience=RESOURCE, **options)  # type: ignore[arg-type]


async def refusal(v: JWTVerifier, token: str) -> str:
    with anyio.fail_after(20), pytest.raises(InvalidTokenError) as caught:
        await v.verify_token(token)
    return caught.value.description


@pytest.mark.parametrize("algorithm", ["RS256", "PS256", "ES256", "EdDSA"])
async def test_a_token_signed_by_a_served_key_is_accepted_with_what_it_says(algorithm: str) -> None:
    key = SigningKey(algorithm)
    with serve(JWKSApp(key).app) as base:
        token = key.sign()
        access = await verifier(f"{base}/jwks").verify_token(token)
    assert access is not None
    assert (access.client_id, access.subject, access.resource) == ("notes-app", "alice", RESOURCE)
    assert access.scopes == ["notes:read", "notes:write"]
    assert access.claims is not None and access.expires_at == access.claims["exp"]
    assert access.token == token


async def test_scp_lists_become_scopes_and_azp_names_the_client() -> None:
    key = SigningKey("ES256")
    with serve(JWKSApp(key).app) as base:
        access = await verifier(f"{base}/jwks").verify_token(
            key.sign(scope=None, scp=["files:read", "files:write"], client_id=None, azp="cli"))
    assert access is not None
    assert (access.scopes, access.client_id) == (["files:read", "files:write"], "cli")


async def test_a_rotated_key_is_fetched_on_first_sight_of_its_kid() -> None:
    old, new = SigningKey("RS256"), SigningKey("RS256")
    jwks = JWKSApp(old)
    with serve(jwks.app) as base:
        v = verifier(f"{base}/jwks", jwks_refresh_interval=0, cache_ttl=0)
        assert await v.verify_token(old.sign()) is not None
        jwks.keys = [new]  # the issuer rotates
        assert await v.verify_token(new.sign()) is not None
        assert jwks.requests == 2
        assert await v.verify_token(new.sign()) is not None
        assert jwks.requests == 2  # cached again


async def test_a_flood_of_unknown_kids_costs_the_issuer_one_request_per_interval() -> None:
    known, stranger = SigningKey("ES256"), SigningKey("ES256")
    jwks = JWKSApp(known)
    with serve(jwks.app) as base:
        v = verifier(f"{base}/jwks", jwks_refresh_interval=3600)
        assert await v.verify_token(known.sign()) is not None
        for _ in range(30):
            forged = stranger.sign(headers={"kid": uuid.uuid4().hex})
            assert await refusal(v, forged) == "Token signing key is unknown"
        assert jwks.requests == 1  # the whole flood falls inside the refresh interval of the first fetch


async def test_a_key_with_the_right_kid_but_another_secret_gives_an_invalid_signature() -> None:
    real = SigningKey("ES256", kid="k1")
    impostor = SigningKey("ES256", kid="k1")
    with serve(JWKSApp(real).app) as base:
        assert await refusal(verifier(f"{base}/jwks"), impostor.sign()) == "Token signature is invalid"


async def test_a_static_pem_or_jwk_key_verifies_without_any_fetch() -> None:
    key = SigningKey("PS256")
    for public in (key.public_pem(), key.public_pem().decode(), key.jwk):
        v = JWTVerifier(issuer=ISSUER, public_key=public, audience=RESOURCE)
        access = await v.verify_token(key.sign())
        assert access is not None and access.subject == "alice"


async def test_several_issuers_and_audiences_may_be_accepted() -> None:
    key = SigningKey("ES256")
    v = JWTVerifier(issuer=["https://a.example", ISSUER], public_key=key.jwk, audience=["https://other", RESOURCE])
    assert await v.verify_token(key.sign(aud=["https://unrelated", RESOURCE])) is not None


async def test_the_audience_defaults_to_the_resource_the_server_binds() -> None:
    key = SigningKey("ES256")
    v = JWTVerifier(issuer=ISSUER, public_key=key.jwk)
    assert await refusal(v, key.sign()) == "Token was not issued for this resource"  # nothing bound: fail closed
    v.bind_resource(RESOURCE)
    assert await v.verify_token(key.sign(aud=RESOURCE + "/")) is not None
    assert await refusal(v, key.sign(aud="https://mcp.example.com/other")) == "Token was not issued for this resource"


async def test_the_audience_check_can_be_switched_off() -> None:
    key = SigningKey("ES256")
    v = JWTVerifier(issuer=ISSUER, public_key=key.jwk, validate_audience=False)
    access = await v.verify_token(key.sign(aud="https://elsewhere.example"))
    assert access is not None and access.resource == "https://elsewhere.example"


async def test_required_scopes_are_a_403_not_a_401() -> None:
    key = SigningKey("ES256")
    v = JWTVerifier(issuer=ISSUER, public_key=key.jwk, audience=RESOURCE, required_scopes=["notes:admin"])
    with pytest.raises(InsufficientScopeError) as caught:
        await v.verify_token(key.sign())
    assert caught.value.required == ["notes:admin"]


async def test_the_issuer_rule_must_be_stated_and_hmac_or_none_cannot_be_allowed() -> None:
    key = SigningKey("ES256")
    with pytest.raises(ValueError, match="asymmetric"):
        JWTVerifier(issuer=ISSUER, public_key=key.jwk, algorithms=["HS256"])
    with pytest.raises(ValueError, match="asymmetric"):
        JWTVerifier(issuer=ISSUER, public_key=key.jwk, algorithms=["none"])
    with pytest.raises(ValueError, match="exactly one"):
        JWTVerifier(issuer=ISSUER)
    anyone = JWTVerifier(issuer=None, public_key=key.jwk, audience=RESOURCE)
    assert await anyone.verify_token(key.sign(iss="https://whoever.example")) is not None


async def test_clock_skew_within_the_leeway_is_tolerated() -> None:
    key = SigningKey("ES256")
    v = JWTVerifier(issuer=ISSUER, public_key=key.jwk, audience=RESOURCE, leeway=60)
    now = int(time.time())
    assert await v.verify_token(key.sign(exp=now - 20, iat=now + 20, nbf=now + 20)) is not None
    assert await refusal(v, key.sign(exp=now - 120)) == "Token has expired"


# -- the issuer's key endpoint misbehaving --------------------------------------------------------------


async def test_a_jwks_endpoint_that_is_down_refuses_tokens_without_hanging() -> None:
    v = verifier(f"{closed_port()}/jwks", jwks_timeout=2)
    assert await refusal(v, SigningKey("ES256").sign()) == "Token signing keys are unavailable"


async def test_a_jwks_endpoint_that_never_answers_is_given_up_after_the_timeout() -> None:
    with silent_port() as base:
        v = verifier(f"{base}/jwks", jwks_timeout=0.5)
        assert await refusal(v, SigningKey("ES256").sign()) == "Token signing keys are unavailable"
        # the failed attempt counts against the refresh interval: the next token does not wait again
        assert await refusal(v, SigningKey("ES256").sign()) == "Token signing keys are unavailable"
        assert v.jwks is not None and v.jwks.fetches == 1


@pytest.mark.parametrize("mode", ["error", "garbage"])
async def test_a_broken_jwks_answer_refuses_tokens(mode: str) -> None:
    key = SigningKey("ES256")
    jwks = JWKSApp(key)
    jwks.mode = mode
    with serve(jwks.app) as base:
        assert await refusal(verifier(f"{base}/jwks"), key.sign()) == "Token signing keys are unavailable"


async def test_keys_already_fetched_stay_in_use_while_the_issuer_is_down() -> None:
    key = SigningKey("ES256")
    jwks = JWKSApp(key)
    with serve(jwks.app) as base:
        v = verifier(f"{base}/jwks", jwks_cache_ttl=0, jwks_refresh_interval=0)
        assert await v.verify_token(key.sign()) is not None
        jwks.mode = "error"
        assert await v.verify_token(key.sign()) is not None
        assert jwks.requests == 2  # it did try, and kept the old set


async def test_encryption_private_and_broken_keys_in_the_set_are_skipped() -> None:
    good = SigningKey("ES256")
    jwks = JWKSApp(good)
    enc = SigningKey("RS256")
    enc.jwk["use"] = "enc"
    broken = SigningKey("ES256")
    broken.jwk["x"] = "not-base64!"
    jwks.keys = [enc, broken, good]
    with serve(jwks.app) as base:
        v = verifier(f"{base}/jwks")
        assert await v.verify_token(good.sign()) is not None
        assert await refusal(v, enc.sign()) == "Token signing key is unknown"


async def test_a_verified_token_is_remembered_for_cache_ttl_and_scopes_still_apply() -> None:
    key = SigningKey("RS256")
    jwks = JWKSApp(key)
    with serve(jwks.app) as base:
        remembering = verifier(f"{base}/jwks", jwks_cache_ttl=0, jwks_refresh_interval=0)
        forgetting = verifier(f"{base}/jwks", jwks_cache_ttl=0, jwks_refresh_interval=0, cache_ttl=0)
        strict = verifier(f"{base}/jwks", required_scopes=["notes:admin"])
        token = key.sign()
        assert await remembering.verify_token(token) is not None
        assert await forgetting.verify_token(token) is not None
        with pytest.raises(InsufficientScopeError):
            await strict.verify_token(token)
        jwks.keys = [SigningKey("RS256")]  # the key is retired for another
        assert await remembering.verify_token(token) is not None  # not verified again
        assert await refusal(forgetting, token) == "Token signing key is unknown"
        with pytest.raises(InsufficientScopeError):
            await strict.verify_token(token)  # a remembered token still needs its scopes
