"""The game service over an event store port; no adapter (gRPC, REST, UECda) is imported
here: ``service/runtime.py`` wires them together."""

STORE_PREFIX = "daifugo"  # the key prefix of the deployment's event store
