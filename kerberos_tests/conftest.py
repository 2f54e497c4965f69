"""A throw-away Kerberos realm for the SPNEGO tests (``make test-kerberos``): MIT Kerberos's
KDC (Debian's ``krb5-kdc``) with its database in a temporary folder, on 127.0.0.1 at a free
port, ended by its pid in ``finally``; a user ``alice`` with a password and the service
``HTTP/localhost`` (the principal the RM's ``KerberosAuthenticationHandler`` uses on a host
named localhost) with a keytab. The process's Kerberos environment (KRB5_CONFIG, KRB5CCNAME,
KRB5_KTNAME) points at the realm for the session."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ports import free_port

REALM = "FAIRSHARE.TEST"
PASSWORD = "alice-secret"


@dataclass(frozen=True)
class Realm:
    folder: Path
    env: dict[str, str]  # the environment a client of the realm runs with
    keytab: Path  # HTTP/localhost's

    def kinit(self, cache: Path) -> None:
        subprocess.run(["kinit", f"alice@{REALM}"], input=PASSWORD + "\n", text=True,
                       check=True, capture_output=True, env={**self.env,
                                                             "KRB5CCNAME": f"FILE:{cache}"})


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin")
    if found is None:
        raise RuntimeError(f"{name} not found: install krb5-kdc and krb5-user (make "
                           "test-kerberos does)")
    return found


@pytest.fixture(scope="session")
def realm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Realm]:
    folder = tmp_path_factory.mktemp("krb5")
    port = free_port()
    (folder / "krb5.conf").write_text(f"""[libdefaults]
  default_realm = {REALM}
  dns_lookup_kdc = false
  dns_lookup_realm = false
  rdns = false
  dns_canonicalize_hostname = false
  udp_preference_limit = 1
[realms]
  {REALM} = {{
    kdc = 127.0.0.1:{port}
  }}
""")
    (folder / "kdc.conf").write_text(f"""[kdcdefaults]
  kdc_listen = 127.0.0.1:{port}
  kdc_tcp_listen = 127.0.0.1:{port}
[realms]
  {REALM} = {{
    database_name = {folder}/principal
    key_stash_file = {folder}/stash
    acl_file = {folder}/kadm5.acl
  }}
[logging]
  kdc = FILE:{folder}/kdc.log
""")
    env = {**os.environ, "KRB5_CONFIG": str(folder / "krb5.conf"),
           "KRB5_KDC_PROFILE": str(folder / "kdc.conf")}
    subprocess.run([_tool("kdb5_util"), "create", "-s", "-r", REALM, "-P", "master"],
                   check=True, capture_output=True, env=env)
    keytab = folder / "http.keytab"
    for query in (f"addprinc -pw {PASSWORD} alice", "addprinc -randkey HTTP/localhost",
                  f"ktadd -k {keytab} HTTP/localhost"):
        subprocess.run([_tool("kadmin.local"), "-r", REALM, "-q", query], check=True,
                       capture_output=True, env=env)
    kdc = subprocess.Popen([_tool("krb5kdc"), "-n", "-r", REALM], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:  # ready when it takes TCP connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert kdc.poll() is None and time.monotonic() < deadline, "krb5kdc did not start"
                time.sleep(0.1)
        yield Realm(folder, {k: v for k, v in env.items() if k != "KRB5_KDC_PROFILE"}, keytab)
    finally:
        kdc.terminate()
        try:
            kdc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kdc.kill()
            kdc.wait()
