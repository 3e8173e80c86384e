#!/usr/bin/python3
"""Validate a JSON document against a JSON Schema (draft 2020-12).

    scripts/validate_json.py SCHEMA INSTANCE

Exit 0 when valid; 1 with every violation printed (path and message) when not.
Used by the test that checks proofs_check --json against
proofs_check/schema/audit.schema.json.
"""
import json
import sys

import jsonschema


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        instance = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
    for e in errors:
        print(f"{sys.argv[2]}: /{'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
    if not errors:
        print(f"{sys.argv[2]}: valid against {sys.argv[1]}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
