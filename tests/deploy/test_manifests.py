"""deploy/ checked offline, with no container engine: the Kubernetes manifests against
the official schemas (kubernetes-validate, strict: an unknown field is an error), the
compose file against the Compose Specification's schema (the copy check-jsonschema
ships), and what nginx.conf must keep for the service's long calls. The Dockerfile:
test_dockerfile.py; nginx run for real: test_load_balancer.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import kubernetes_validate
import pytest
import yaml

from clients.runner import TURN_WAIT
from service.rest.live import KEEPALIVE
from service.rest.live import live as live_route

from .support import DEPLOY, final_user, healthcheck

K8S = DEPLOY / "k8s"
# native gRPC probes are GA from 1.27: the oldest version the manifests are for
K8S_VERSIONS = ["1.27.0", kubernetes_validate.latest_version()]
MANIFESTS = sorted(path for path in K8S.glob("*.yaml") if path.name != "kustomization.yaml")


def load_all(path: Path) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


def k8s_objects() -> dict[str, dict[str, Any]]:
    """Every object of the manifests by kind (one of each)."""
    objects = [document for path in MANIFESTS for document in load_all(path)]
    by_kind = {document["kind"]: document for document in objects}
    assert len(by_kind) == len(objects), "one object of each kind"
    return by_kind


# --- Kubernetes -------------------------------------------------------------------


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda path: path.name)
def test_k8s_manifest_matches_the_official_schema(path: Path, version: str) -> None:
    documents = load_all(path)
    assert documents, f"{path.name} holds no object"
    for document in documents:
        try:
            kubernetes_validate.validate(document, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = ".".join(str(part) for part in error.path)
            pytest.fail(f"{path.name} ({version}): {where}: {error.message}")


def test_k8s_validation_is_strict() -> None:
    # so a typo in a field name can never pass as "valid"
    deployment = k8s_objects()["Deployment"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["securityContext"]["readOnlyRootFs"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSIONS[-1], strict=True)


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(path.name for path in MANIFESTS)
    image = k8s_objects()["Deployment"]["spec"]["template"]["spec"]["containers"][0]["image"]
    assert [entry["name"] for entry in kustomization["images"]] == [image.split(":")[0]]


def test_k8s_objects_refer_to_each_other() -> None:
    objects = k8s_objects()
    deployment, service = objects["Deployment"], objects["Service"]
    pod = deployment["spec"]["template"]
    labels = pod["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    assert objects["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"].items() <= (
        labels.items()
    )
    target = objects["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])

    container = pod["spec"]["containers"][0]
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert ports == {"grpc": 50051, "http": 8080}
    assert {port["targetPort"] for port in service["spec"]["ports"]} == set(ports)
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == ports["grpc"], probe

    (redis_url,) = [env for env in container["env"] if env["name"] == "REDIS_URL"]
    ref = redis_url["valueFrom"]["secretKeyRef"]
    secret = objects["Secret"]
    assert ref["name"] == secret["metadata"]["name"] and ref["key"] in secret["stringData"]


def test_k8s_pods_read_one_signing_key_from_a_secret_made_out_of_band() -> None:
    objects = k8s_objects()
    pod = objects["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    (setting,) = [env for env in container["env"] if env["name"] == "DAIFUGO_SIGNING_KEY_FILE"]
    key_file = PurePosixPath(setting["value"])
    (mount,) = [
        mount
        for mount in container["volumeMounts"]
        if PurePosixPath(mount["mountPath"]) in key_file.parents
    ]
    assert mount["readOnly"] is True
    (volume,) = [volume for volume in pod["volumes"] if volume["name"] == mount["name"]]
    secret = volume["secret"]
    relative = str(key_file.relative_to(mount["mountPath"]))
    assert [item["path"] for item in secret["items"]] == [relative]
    # readable by the pod's group only, never written, never by others
    mode = secret["defaultMode"]
    assert mode & 0o040 and not mode & 0o222 and not mode & 0o007, oct(mode)
    assert str(pod["securityContext"]["fsGroup"]) == final_user().split(":")[1]
    # never a key in git: the Secret is not one of the manifests
    assert secret["secretName"] != objects["Secret"]["metadata"]["name"]
    for path in K8S.glob("*.yaml"):
        assert "private_key" not in path.read_text(), path.name


def test_k8s_pod_runs_as_the_images_user() -> None:
    security = k8s_objects()["Deployment"]["spec"]["template"]["spec"]["securityContext"]
    assert security["runAsNonRoot"] is True
    assert str(security["runAsUser"]) == final_user().split(":")[0]


# --- Compose ----------------------------------------------------------------------


def check_compose(path: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec"]
    return subprocess.run([*command, str(path)], capture_output=True, text=True, check=False)


def test_compose_file_matches_the_compose_specification() -> None:
    result = check_compose(DEPLOY / "compose.yaml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_validation_is_strict(tmp_path: Path) -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    compose["services"]["daifugo"]["depends_on_"] = ["redis"]
    (tmp_path / "compose.yaml").write_text(yaml.safe_dump(compose))
    assert check_compose(tmp_path / "compose.yaml").returncode == 1


def test_compose_wiring() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    redis, daifugo, lb = services["redis"], services["daifugo"], services["lb"]
    # nothing acknowledged is lost: AOF, fsync before every reply, on a volume
    assert redis["command"][redis["command"].index("--appendonly") + 1] == "yes"
    assert redis["command"][redis["command"].index("--appendfsync") + 1] == "always"
    assert redis["volumes"][0].split(":")[1] == "/data"
    assert daifugo["environment"]["REDIS_URL"].startswith("redis://redis:")
    assert daifugo["deploy"]["replicas"] >= 2
    assert (DEPLOY / daifugo["build"]["context"] / daifugo["build"]["dockerfile"]).is_file()
    # a service_healthy condition needs a health check: Redis' own, the image's for daifugo
    assert "healthcheck" in redis and healthcheck().cmd == "HEALTHCHECK"
    assert daifugo["depends_on"]["redis"]["condition"] == "service_healthy"
    assert lb["depends_on"]["daifugo"]["condition"] == "service_healthy"
    config = lb["volumes"][0].split(":")[0]
    assert (DEPLOY / config).resolve() == DEPLOY / "nginx" / "nginx.conf"


def test_compose_gives_every_replica_one_signing_key_as_a_secret() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    daifugo = compose["services"]["daifugo"]
    (secret,) = daifugo["secrets"]
    target = secret["target"]
    assert daifugo["environment"]["DAIFUGO_SIGNING_KEY_FILE"] == f"/run/secrets/{target}"
    source = (DEPLOY / compose["secrets"][secret["source"]]["file"]).resolve()
    assert source.parent == DEPLOY
    # the file it names is made locally and never committed
    relative = str(source.relative_to(DEPLOY.parent))
    ignored = subprocess.run(
        ["git", "-C", str(DEPLOY.parent), "check-ignore", "-q", "--no-index", relative],
        check=False,
    )
    assert ignored.returncode == 0, f"{relative} is not ignored by git"


# --- nginx (run for real in test_load_balancer.py) ---------------------------------


def seconds(value: str) -> float:
    """An nginx time (`90`, `75s`, `2h`, `1h 30m`) in seconds."""
    units = {"ms": 0.001, "": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
    parts = re.findall(r"(\d+)(ms|s|m|h|d)?", value)
    assert parts, value
    return sum(int(number) * units[unit] for number, unit in parts)


def directive(block: str, name: str) -> str:
    (value,) = re.findall(rf"^\s*{name}\s+([^;]+);", block, re.MULTILINE)
    return str(value)


def test_nginx_keeps_the_services_long_calls_open() -> None:
    config = (DEPLOY / "nginx" / "nginx.conf").read_text()
    grpc = config[config.index("grpc_pass") :]
    grpc = grpc[: grpc.index("}")]
    # a bot's AwaitTurn waits up to TURN_WAIT for the others
    assert seconds(directive(grpc, "grpc_read_timeout")) > TURN_WAIT
    (pattern, live) = re.findall(r"location ~ (\S+) \{([^}]*)\}", config)[0]
    (route,) = live_route.paths
    assert re.search(pattern, route.replace("{match_id:str}", "0123456789abcdef"))
    assert directive(live, "proxy_buffering") == "off"
    assert seconds(directive(live, "proxy_read_timeout")) > KEEPALIVE * 4
