"""Discourse's published API description as a test seam: not a server, a contract.

``Contract`` reads ``tests/data/discourse/openapi.json`` (see its README and LICENSE) and checks an ``httpx.Request``
against the operation its method and path name: no undeclared query parameter, declared
parameters (path, query, header) present when required and of their schema's type, the JSON
body valid against the request schema (which is strict: ``additionalProperties: false``).
``sample`` builds a response body from an operation's response schema (every required field,
filled from the schema's ``example`` or its type, with overrides) and validates it.
``ContractTransport`` is an httpx transport: it validates each request, asks a ``responder``
what to answer (by default a sample), validates a 200 answer's body against the response
schema, and records every exchange so tests can look at what was sent. A body given as bytes
is sent as it is, unchecked: that is how a test sends a malformed answer on purpose.

The description says nothing about 429 and 5xx answers or webhooks; those answers are built by
the tests in the shape Discourse sends (``{"errors": [...], "extras": {"wait_seconds": N}}``).
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable

import httpx
from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "tests" / "data" / "discourse" / "openapi.json"


class ContractViolation(AssertionError):
    """A request or a response does not match the published description."""


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    spec: dict

    def response_schema(self, status: str = "200") -> dict:
        try:
            return self.spec["responses"][status]["content"]["application/json"]["schema"]
        except KeyError as exc:
            raise ContractViolation(f"{self.method} {self.template}: no JSON response {status} described") from exc


@dataclass
class Exchange:
    operation: Operation
    request: httpx.Request
    path_params: dict[str, str]
    body: Any
    status: int = 0
    response: Any = None


@cache
def load_spec() -> dict:
    if not SPEC.is_file():
        raise FileNotFoundError(f"{SPEC} is missing: it is part of the repository (tests/data/): restore it with git checkout")
    return json.loads(SPEC.read_text(encoding="utf-8"))


class Contract:
    def __init__(self, spec: dict | None = None) -> None:
        self.spec = spec or load_spec()
        self._routes = []
        for template, ops in self.spec["paths"].items():
            pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"
            for method, op in ops.items():
                self._routes.append((method.upper(), template, re.compile(pattern), op))

    def operation(self, method: str, path: str) -> tuple[Operation, dict[str, str]]:
        for m, template, pattern, op in self._routes:
            match = pattern.match(path)
            if m == method.upper() and match:
                return Operation(m, template, op), match.groupdict()
        raise ContractViolation(f"{method} {path}: no such operation in the API description")

    def check_request(self, request: httpx.Request) -> Exchange:
        operation, path_params = self.operation(request.method, request.url.path)
        where = f"{request.method} {operation.template}"
        declared = {(p["in"], p["name"]): p for p in operation.spec.get("parameters", [])}
        query = {}
        for name, value in request.url.params.multi_items():
            if ("query", name) not in declared:
                raise ContractViolation(f"{where}: query parameter {name!r} is not described")
            if name in query:
                raise ContractViolation(f"{where}: query parameter {name!r} given twice")
            query[name] = value
        sources = {"query": query, "path": path_params,
                   "header": {k.lower(): v for k, v in request.headers.items()}}
        for (where_in, name), param in declared.items():
            values = sources.get(where_in, {})
            key = name.lower() if where_in == "header" else name
            if key not in values:
                if param.get("required"):
                    raise ContractViolation(f"{where}: required {where_in} parameter {name!r} missing")
                continue
            _check(param.get("schema", {}), _coerce(values[key], param.get("schema", {})),
                   f"{where}: {where_in} parameter {name!r}")
        body = None
        content = request.content
        described = operation.spec.get("requestBody", {}).get("content", {}).get("application/json")
        if content:
            if described is None:
                raise ContractViolation(f"{where}: sends a body the description does not have")
            if not request.headers.get("content-type", "").startswith("application/json"):
                raise ContractViolation(f"{where}: body is not sent as application/json")
            body = json.loads(content)
            _check(described["schema"], body, f"{where}: request body")
        elif operation.spec.get("requestBody", {}).get("required"):
            raise ContractViolation(f"{where}: the request body is required")
        return Exchange(operation, request, path_params, body)

    def check_response(self, operation: Operation, body: Any, status: str = "200") -> None:
        _check(operation.response_schema(status), body, f"{operation.method} {operation.template} response {status}")

    def sample(self, method: str, template: str, status: str = "200", **overrides: Any) -> Any:
        """A response body for the operation, valid against its schema, with ``overrides``."""
        operation = Operation(method.upper(), template, self.spec["paths"][template][method.lower()])
        body = build(operation.response_schema(status), overrides)
        self.check_response(operation, body, status)
        return body

    def item_schema(self, method: str, template: str, *pointer: str) -> dict:
        """A nested schema, e.g. one item of ``latest_posts``: ("latest_posts", "items")."""
        schema = self.spec["paths"][template][method.lower()]["responses"]["200"]["content"]["application/json"]["schema"]
        for part in pointer:
            schema = schema["items"] if part == "items" else schema["properties"][part]
        return schema


def build(schema: dict, overrides: dict | None = None) -> Any:
    """A value that fits ``schema``: required properties (and overridden ones) of an object,
    an empty array, the ``example`` or a plain value of the first non-null type."""
    overrides = dict(overrides or {})
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties", {})
        value = {}
        for name in list(schema.get("required", [])) + [k for k in overrides if k not in schema.get("required", [])]:
            if name in overrides:
                value[name] = copy.deepcopy(overrides.pop(name))
            else:
                value[name] = build(props.get(name, {}))
        return value
    if "example" in schema:
        return schema["example"]
    return {"array": [], "string": "text", "integer": 1, "number": 1.0, "boolean": False,
            "null": None}.get(kind, None)


def _coerce(value: str, schema: dict) -> Any:
    kind = schema.get("type")
    if kind == "integer":
        if not re.fullmatch(r"-?\d+", value):
            raise ContractViolation(f"{value!r} is not an integer")
        return int(value)
    return value


def _check(schema: dict, value: Any, where: str) -> None:
    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        raise ContractViolation(f"{where}: {first.message} at {'/'.join(map(str, first.path)) or 'top'}")


Responder = Callable[[Exchange], "tuple[int, Any] | tuple[int, Any, dict]"]


@dataclass
class ContractTransport(httpx.BaseTransport):
    """Validates every request, answers with ``responder``'s (status, body[, headers]) and
    validates every 200 body it answers with; ``exchanges`` records them in order."""

    contract: Contract
    responder: Responder
    exchanges: list[Exchange] = field(default_factory=list)
    check_responses: bool = True

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        exchange = self.contract.check_request(request)
        self.exchanges.append(exchange)
        answer = self.responder(exchange)
        if isinstance(answer, httpx.Response):
            exchange.status = answer.status_code
            return answer
        status, body, headers = (answer + ({},))[:3] if len(answer) == 2 else answer
        if status == 200 and self.check_responses and not isinstance(body, bytes):
            self.contract.check_response(exchange.operation, body)
        exchange.status, exchange.response = status, body
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return httpx.Response(status, content=content, request=request,
                              headers={"content-type": "application/json", **headers})
