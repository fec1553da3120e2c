"""The Linux packages (packaging/linux_package.py, packaging/install.sh) built from a stand-in bundle.

A real bundle takes a PyInstaller build (``.ci/run`` builds one, packages it, installs the ``.deb`` with
apt-get and the tarball with install.sh, and starts the installed app); here a folder shaped like one is
enough to check what the packages hold and that ``install.sh --user --uninstall`` leaves a home folder as
it found it.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import PySide6
import pytest

from tests.conftest import REPO
from tests.helpers import load_script

pytestmark = [
    pytest.mark.packaging,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux packages"),
]
PACKAGING = REPO / "packaging"
VERSION = "9.8.7rc1"
MIME = "{http://www.freedesktop.org/standards/shared-mime-info}"


linux_package = load_script(PACKAGING / "linux_package.py")


def _bundle(tmp_path: Path, executable: bytes | None = None) -> Path:
    """A folder shaped like the one-folder bundle: the executable, _internal with the dist-info, a symlink."""
    bundle = tmp_path / "bundle" / "prime-sessions"
    internal = bundle / "_internal"
    (internal / f"prime_sessions-{VERSION}.dist-info").mkdir(parents=True)
    (internal / f"prime_sessions-{VERSION}.dist-info" / "METADATA").write_text(f"Version: {VERSION}\n")
    (internal / "lib").mkdir()
    (internal / "lib" / "libstandin.so.1").write_bytes(b"not really a library")
    (internal / "libstandin.so.1").symlink_to("lib/libstandin.so.1")
    exe = bundle / "prime-sessions"
    exe.write_bytes(executable or f'#!/bin/sh\necho "prime-sessions {VERSION}"\n'.encode())
    exe.chmod(0o755)
    return bundle


def _snapshot(folder: Path) -> dict[str, str]:
    """Every path under ``folder`` with its bytes' digest (or what a symlink points at, or 'dir')."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            found[key] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            found[key] = "dir"
        else:
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def test_versions_sort_as_debian_sorts_them() -> None:
    assert linux_package.debian_version("0.1.0") == "0.1.0"
    assert linux_package.debian_version("1.0rc1") == "1.0~rc1"
    assert linux_package.debian_version("2.0.0.dev3") == "2.0.0~dev3"
    assert linux_package.debian_version("1.2b2") == "1.2~b2"


def test_the_desktop_entry_opens_the_file_type_the_mime_package_defines() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(PACKAGING / "prime-sessions.desktop", encoding="utf-8")
    types = [t for t in parser["Desktop Entry"]["MimeType"].split(";") if t]
    assert parser["Desktop Entry"]["Exec"].endswith(" %f")  # one file per start; later starts hand over
    root = ElementTree.parse(PACKAGING / "prime-sessions-mime.xml").getroot()
    (mime,) = root.findall(f"{MIME}mime-type")
    assert types == [mime.get("type")]
    assert [g.get("pattern") for g in mime.findall(f"{MIME}glob")] == ["*.jsonl"]
    assert mime.find(f"{MIME}icon").get("name") == parser["Desktop Entry"]["Icon"]
    (match,) = mime.iter(f"{MIME}match")
    demo = REPO / "resources" / "demo" / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
    first_line = demo.read_text(encoding="utf-8").splitlines()[0]
    assert first_line.startswith(match.get("value"))  # the magic recognises a session by its header


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_the_deb_installs_the_bundle_the_command_and_the_desktop_files(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, Path("/bin/true").read_bytes())  # an ELF file that needs libc
    target = linux_package.build_deb(bundle, tmp_path / "out")
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True)
    assert target.name == f"prime-sessions_9.8.7~rc1_{arch.stdout.strip()}.deb"
    fields = subprocess.run(
        ["dpkg-deb", "-f", str(target)], capture_output=True, text=True, check=True
    ).stdout
    assert "Package: prime-sessions\n" in fields and "Version: 9.8.7~rc1\n" in fields
    assert "Depends: libc6 (>= " in fields  # worked out from what the bundle's ELF files need
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(target)], capture_output=True, text=True, check=True
    ).stdout
    entries = {line.split()[5].removeprefix("."): line for line in listing.splitlines()}
    assert entries["/opt/prime-sessions/prime-sessions"].startswith("-rwxr-xr-x root/root")
    assert "-> lib/libstandin.so.1" in entries["/opt/prime-sessions/_internal/libstandin.so.1"]
    assert entries["/usr/bin/prime-sessions"].endswith("-> /opt/prime-sessions/prime-sessions")
    for path in (
        "/usr/share/applications/prime-sessions.desktop",
        "/usr/share/mime/packages/prime-sessions.xml",
        "/usr/share/icons/hicolor/scalable/apps/prime-sessions.svg",
        *(f"/usr/share/icons/hicolor/{n}x{n}/apps/prime-sessions.png" for n in (16, 32, 48, 64, 128, 256)),
    ):
        assert entries[path].startswith("-rw-r--r-- root/root"), path
    assert not any(path.startswith("/DEBIAN") for path in entries)  # no maintainer scripts: triggers do it


def _nothing_installed(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """A build machine whose ldconfig and dpkg know no library (a fresh one, set up as the README says)."""
    asked: list[list[str]] = []
    real_run = subprocess.run

    def run(command: list[str], *args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        if command[0] in ("ldconfig", "dpkg"):
            asked.append(command)
            return subprocess.CompletedProcess(command, 0 if command[0] == "ldconfig" else 1, "", "")
        return real_run(command, *args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(linux_package.subprocess, "run", run)
    return asked


WAYLAND_CLIENT = Path(PySide6.__file__).parent / "Qt" / "lib" / "libQt6WaylandClient.so.6"


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
@pytest.mark.skipif(not WAYLAND_CLIENT.is_file(), reason="needs PySide6's Wayland client library")
def test_depends_does_not_rest_on_what_the_build_machine_has_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Qt's Wayland client library, as the bundle carries it: it needs libwayland-cursor.so.0 from the
    # system, which a machine set up by the README never installed ("no installed package holds it").
    bundle = _bundle(tmp_path, Path("/bin/true").read_bytes())
    lib = bundle / "_internal" / "lib"
    shutil.copyfile(WAYLAND_CLIENT, lib / WAYLAND_CLIENT.name)
    for carried in ("libQt6Gui.so.6", "libQt6Core.so.6"):  # in the real bundle beside it
        (bundle / "_internal" / carried).symlink_to("lib/libstandin.so.1")
    asked = _nothing_installed(monkeypatch)
    found = linux_package.depends(bundle)
    assert found[0].startswith("libc6 (>= ")
    assert found[1:] == sorted(
        ["libgcc-s1", "libgl1", "libstdc++6", "libwayland-client0", "libwayland-cursor0", "libxkbcommon0"]
    )
    assert asked == []  # the table decided every one


def test_a_library_neither_the_table_nor_dpkg_knows_stops_the_build_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _nothing_installed(monkeypatch)
    with pytest.raises(linux_package.PackagingError, match=r"needs libfrob\.so\.7, .*SYSTEM_LIBRARIES"):
        linux_package._package_of("libfrob.so.7")


def test_the_readme_names_every_package_ci_installs_for_the_build() -> None:
    script = (REPO / ".ci" / "run").read_text()
    wanted: list[str] = []
    for array in ("qt_offscreen_pkgs", "bundle_pkgs"):
        found = re.search(rf"^{array}=\(([^)]*)\)", script, re.MULTILINE)
        assert found is not None, array
        wanted += found.group(1).split()
    readme = (PACKAGING / "README.md").read_text()
    block = re.search(r"```sh\napt-get install (.*?)```", readme, re.DOTALL)
    assert block is not None
    assert sorted(block.group(1).replace("\\\n", " ").split()) == sorted(
        ["python3-venv", "python3-pip", *wanted]
    )


def test_the_tarball_installs_for_one_user_and_uninstalls_to_what_was_there(tmp_path: Path) -> None:
    target = linux_package.build_tarball(_bundle(tmp_path), tmp_path / "out")
    assert target.name.startswith(f"prime-sessions-{VERSION}-linux-")
    with tarfile.open(target) as archive:
        names = archive.getnames()
        archive.extractall(tmp_path / "unpacked", filter="tar")
    top = f"prime-sessions-{VERSION}"
    assert {f"{top}/install.sh", f"{top}/prime-sessions/prime-sessions", f"{top}/share"} <= set(names)
    home = tmp_path / "home"
    (home / ".local" / "share" / "applications").mkdir(parents=True)
    (home / ".local" / "share" / "applications" / "other.desktop").write_text("[Desktop Entry]\n")
    (home / ".local" / "bin").mkdir()
    (home / ".local" / "bin" / "other").write_text("#!/bin/sh\n")
    before = _snapshot(home)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C.UTF-8"}
    script = tmp_path / "unpacked" / top / "install.sh"

    def install(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", str(script), *args], env=env, capture_output=True, text=True, timeout=120
        )

    done = install("--user")
    assert done.returncode == 0, done.stderr
    assert f"Prime Sessions {VERSION} is installed" in done.stdout
    local = home / ".local"
    command = local / "bin" / "prime-sessions"
    assert os.readlink(command) == str(local / "opt" / "prime-sessions" / "prime-sessions")
    assert subprocess.run([command], capture_output=True, text=True).stdout == f"prime-sessions {VERSION}\n"
    entry = local / "share" / "applications" / "prime-sessions.desktop"
    assert f'Exec="{local}/opt/prime-sessions/prime-sessions" %f' in entry.read_text()
    if shutil.which("desktop-file-validate"):
        validated = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert validated.returncode == 0, validated.stdout
    assert (local / "share" / "icons" / "hicolor" / "48x48" / "apps" / "prime-sessions.png").is_file()
    assert (local / "share" / "mime" / "packages" / "prime-sessions.xml").is_file()
    if shutil.which("update-mime-database"):  # the desktop now knows .jsonl files as sessions
        globs = (local / "share" / "mime" / "globs2").read_text()
        assert "application/x-prime-session:*.jsonl" in globs

    assert install("--user").returncode == 0  # again: replaces the first install
    done = install("--user", "--uninstall")
    assert done.returncode == 0, done.stderr
    assert _snapshot(home) == before  # exactly what was there: the user's own files, nothing of ours
    done = install("--user", "--uninstall")
    assert done.returncode == 1 and "is not installed for this user" in done.stderr


def test_install_never_replaces_a_command_of_someone_else(tmp_path: Path) -> None:
    target = linux_package.build_tarball(_bundle(tmp_path), tmp_path / "out")
    with tarfile.open(target) as archive:
        archive.extractall(tmp_path / "unpacked", filter="tar")
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "prime-sessions").write_text("#!/bin/sh\necho mine\n")
    script = tmp_path / "unpacked" / f"prime-sessions-{VERSION}" / "install.sh"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    done = subprocess.run(["sh", str(script), "--user"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "is not an earlier install's" in done.stderr
    assert (home / ".local" / "bin" / "prime-sessions").read_text() == "#!/bin/sh\necho mine\n"
    assert not (home / ".local" / "opt").exists()
    done = subprocess.run(["sh", str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "usage: ./install.sh --user" in done.stderr
