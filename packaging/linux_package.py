"""The Linux packages of a built bundle: a ``.deb`` (dpkg-deb only) and a tarball with ``install.sh``.

``python3 packaging/linux_package.py deb BUNDLE_DIR OUT_DIR`` (what ``packaging/build-deb`` runs) writes
``OUT_DIR/prime-sessions_<version>_<arch>.deb``::

    /opt/prime-sessions/                              the one-folder bundle, as built
    /usr/bin/prime-sessions -> /opt/prime-sessions/prime-sessions
    /usr/share/applications/prime-sessions.desktop    the menu entry; MimeType: session files
    /usr/share/icons/hicolor/<N>x<N>/apps/prime-sessions.png, scalable/apps/prime-sessions.svg
    /usr/share/mime/packages/prime-sessions.xml       the session file type (a *.jsonl glob)

No maintainer scripts: Debian's file triggers (shared-mime-info, desktop-file-utils, hicolor-icon-theme)
update the desktop's caches after the files arrive and after they go. ``Depends`` is worked out from the
bundle itself: the libraries its ELF files need that it does not carry, mapped to their Debian packages
by a table (:data:`SYSTEM_LIBRARIES`, so it does not depend on what the build machine has installed;
``dpkg -S`` only for a library the table lacks), glibc at least the build machine's.

``python3 packaging/linux_package.py tarball BUNDLE_DIR OUT_DIR`` (``packaging/build-tarball``) writes
``OUT_DIR/prime-sessions-<version>-linux-<machine>.tar.gz``: the bundle, ``install.sh`` and the same
``share/`` files, in one folder ``prime-sessions-<version>/`` (see ``packaging/install.sh``).

Standard library only, so the system's ``python3`` runs it. The version is the bundle's own (its
``prime_sessions-<version>.dist-info``), so a package never names another version than it holds.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ICONS = REPO / "resources" / "icons"
NAME = "prime-sessions"
ICON_SIZES = (16, 32, 48, 64, 128, 256)
MAINTAINER = os.environ.get(
    "PRIME_DEB_MAINTAINER", "Prime Sessions maintainers <maintainers@prime-sessions.invalid>"
)
DESCRIPTION = """\
Browser and editor for coding-agent session files
 Prime Sessions finds, reads, compares, edits and shares Prime Agent (pi)
 coding-agent sessions: append-only JSONL trees of a conversation and its
 branches. One binary is both the desktop window and the command-line tool.
 .
 This package holds a self-contained build (Python, Qt and the libraries it
 needs are bundled under /opt/prime-sessions)."""
_ARCHITECTURES = {0x3E: "amd64", 0xB7: "arm64", 0x03: "i386"}  # ELF e_machine -> Debian architecture
COMPRESSION = os.environ.get("PRIME_DEB_COMPRESSION", "zstd")
_MACHINES = {"amd64": "x86_64", "arm64": "aarch64", "i386": "i686"}


class PackagingError(Exception):
    """The bundle or the build machine lacks something; ``str()`` says what."""


def bundle_version(bundle: Path) -> str:
    """The version the bundle was built as (from its ``prime_sessions-<version>.dist-info``)."""
    found = sorted((bundle / "_internal").glob("prime_sessions-*.dist-info"))
    if len(found) != 1:
        raise PackagingError(
            f"{bundle} is not a Prime Sessions bundle (no single prime_sessions-*.dist-info)."
        )
    return found[0].name.removeprefix("prime_sessions-").removesuffix(".dist-info")


def debian_version(version: str) -> str:
    """A PEP 440 version as Debian orders it: a pre-release sorts before its release (1.0rc1 -> 1.0~rc1)."""
    return re.sub(r"[.-]?(a|b|rc|dev)(\d*)", r"~\1\2", version)


def architecture(bundle: Path) -> str:
    """The Debian architecture of the bundle's executable (the build machine's when it is not ELF)."""
    header = (bundle / NAME).read_bytes()[:20]
    if header[:4] == b"\x7fELF":
        machine = int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")
        if machine in _ARCHITECTURES:
            return _ARCHITECTURES[machine]
    reverse = {machine: arch for arch, machine in _MACHINES.items()}
    return reverse.get(platform.machine(), platform.machine())


# ---------------------------------------------------------------------------- the desktop files
def share_files() -> list[tuple[Path, str]]:
    """(source, path under share/) of the menu entry, the icons and the session file type."""
    files = [
        (HERE / f"{NAME}.desktop", f"applications/{NAME}.desktop"),
        (HERE / f"{NAME}-mime.xml", f"mime/packages/{NAME}.xml"),
        (ICONS / f"{NAME}.svg", f"icons/hicolor/scalable/apps/{NAME}.svg"),
    ]
    files += [(ICONS / f"{NAME}-{n}.png", f"icons/hicolor/{n}x{n}/apps/{NAME}.png") for n in ICON_SIZES]
    missing = [str(source) for source, _dest in files if not source.is_file()]
    if missing:
        raise PackagingError(f"missing: {', '.join(missing)}")
    return files


def _copy_bundle(bundle: Path, target: Path) -> None:
    # Symlinks stay symlinks (the bundle links library names to files in sub-folders); modes are set by
    # kind, so the package does not depend on the build machine's umask.
    shutil.copytree(bundle, target, symlinks=True)
    for path in [target, *target.rglob("*")]:
        if path.is_symlink():
            continue
        executable = path.is_dir() or os.access(path, os.X_OK)
        path.chmod(0o755 if executable else 0o644)


def _install_share(root: Path) -> None:
    for source, dest in share_files():
        target = root / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        target.chmod(0o644)


# ---------------------------------------------------------------------------- the .deb
def _needed_libraries(bundle: Path) -> set[str]:
    """The shared libraries the bundle's ELF files need and the bundle does not hold (by soname)."""
    have: set[str] = set()
    needed: set[str] = set()
    for path in bundle.rglob("*"):
        if path.is_symlink():
            have.add(path.name)  # a library's other name (the bundle links sonames to its files)
            continue
        if not path.is_file():
            continue
        with path.open("rb") as file:
            if file.read(4) != b"\x7fELF":
                continue
        have.add(path.name)
        done = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=False)
        needed.update(re.findall(r"^\s+NEEDED\s+(\S+)$", done.stdout, re.MULTILINE))
    return needed - have


# The Debian package of each library the bundle takes from the system, by soname (Debian 12 and later;
# the same names on Ubuntu). Depends is worked out from this table, not from what the build machine
# happens to have installed: a machine that never installed libwayland-cursor0 builds the same package.
# A soname missing here is looked up with dpkg -S when its package is installed; otherwise the build
# stops and says to add it here (https://packages.debian.org/file:<soname> names the package).
SYSTEM_LIBRARIES = {
    # glibc
    **dict.fromkeys(
        (
            "ld-linux-x86-64.so.2",
            "ld-linux-aarch64.so.1",
            "libc.so.6",
            "libdl.so.2",
            "libm.so.6",
            "libpthread.so.0",
            "libresolv.so.2",
            "librt.so.1",
            "libutil.so.1",
        ),
        "libc6",
    ),
    "libgcc_s.so.1": "libgcc-s1",
    "libstdc++.so.6": "libstdc++6",
    "libz.so.1": "zlib1g",
    # the graphics stack Qt's platform plugins load (never bundled: it must match the machine's drivers)
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    "libxcb.so.1": "libxcb1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
}


def _package_of(soname: str) -> str:
    """The Debian package that holds the library ``soname``.

    From :data:`SYSTEM_LIBRARIES`; for a soname it does not name, the installed package that holds the
    file (found with ldconfig and dpkg -S).
    """
    if soname in SYSTEM_LIBRARIES:
        return SYSTEM_LIBRARIES[soname]
    found = _installed_package_of(soname)
    if found is None:
        raise PackagingError(
            f"the bundle needs {soname}, which packaging/linux_package.py's SYSTEM_LIBRARIES does not map "
            f"to a Debian package and no installed package holds; add it there (packages.debian.org/file:"
            f"{soname} names the package)"
        )
    return found


def _installed_package_of(soname: str) -> str | None:
    """The installed package that holds the library ``soname`` (ldconfig, then dpkg -S), or None."""
    try:
        listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    paths = re.findall(rf"^\s+{re.escape(soname)} \(([^)]*)\) => (\S+)$", listing, re.MULTILINE)
    native = [path for flags, path in paths if "x86-64" in flags or "AArch64" in flags] or [
        p for _f, p in paths
    ]
    for path in native:
        real = os.path.realpath(path)
        # usrmerge: dpkg knows a file by the name its package ships it under, /lib/... or /usr/lib/...
        candidates = {path, real, *(p.removeprefix("/usr") for p in (path, real) if p.startswith("/usr/"))}
        candidates |= {f"/usr{p}" for p in (path, real) if not p.startswith("/usr/")}
        for candidate in sorted(candidates):
            try:
                done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True, check=False)
            except OSError:
                return None
            if done.returncode == 0:
                return done.stdout.split(":", 1)[0].strip()
    return None


def depends(bundle: Path) -> list[str]:
    """The ``Depends`` of the package: what holds each library the bundle needs from the system."""
    packages = {_package_of(soname) for soname in sorted(_needed_libraries(bundle))}
    glibc = os.confstr("CS_GNU_LIBC_VERSION") or ""  # "glibc 2.36": what the bundle was linked against
    result = []
    for package in sorted(packages):
        if package == "libc6" and glibc.startswith("glibc "):
            package = f"libc6 (>= {glibc.split()[1]})"
        result.append(package)
    return result


def control(bundle: Path, root: Path) -> str:
    """The ``DEBIAN/control`` of the package whose files are under ``root``."""
    size_kib = sum(p.lstat().st_size for p in root.rglob("*") if not p.is_dir()) // 1024 + 1
    fields = {
        "Package": NAME,
        "Version": debian_version(bundle_version(bundle)),
        "Architecture": architecture(bundle),
        "Maintainer": MAINTAINER,
        "Installed-Size": str(size_kib),
        "Depends": ", ".join(depends(bundle)),
        # The triggers that put the menu entry, icon and file type in the desktop's caches, and a font.
        "Recommends": "shared-mime-info, desktop-file-utils, hicolor-icon-theme, fonts-dejavu-core",
        "Section": "devel",
        "Priority": "optional",
        "Description": DESCRIPTION,
    }
    return "".join(f"{key}: {value}\n" for key, value in fields.items() if value)


def build_deb(bundle: Path, out: Path) -> Path:
    """Write the ``.deb`` of ``bundle`` into ``out``; its path."""
    if shutil.which("dpkg-deb") is None:
        raise PackagingError("dpkg-deb is not installed (it comes with dpkg)")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="prime-sessions-deb-") as scratch:
        root = Path(scratch) / "root"
        _copy_bundle(bundle, root / "opt" / NAME)
        (root / "usr" / "bin").mkdir(parents=True)
        (root / "usr" / "bin" / NAME).symlink_to(f"/opt/{NAME}/{NAME}")
        _install_share(root / "usr" / "share")
        for folder in [root, *root.rglob("*")]:
            if folder.is_dir() and not folder.is_symlink():
                folder.chmod(0o755)
        text = control(bundle, root)
        (root / "DEBIAN").mkdir(mode=0o755)
        (root / "DEBIAN" / "control").write_text(text, encoding="utf-8")
        fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line and line[0] != " ")
        target = out / f"{NAME}_{fields['Version']}_{fields['Architecture']}.deb"
        subprocess.run(
            ["dpkg-deb", "--root-owner-group", f"-Z{COMPRESSION}", "--build", str(root), str(target)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return target


# ---------------------------------------------------------------------------- the tarball
def build_tarball(bundle: Path, out: Path) -> Path:
    """Write ``prime-sessions-<version>-linux-<machine>.tar.gz`` of ``bundle`` into ``out``; its path."""
    version = bundle_version(bundle)
    machine = _MACHINES.get(architecture(bundle), architecture(bundle))
    top = f"{NAME}-{version}"
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{top}-linux-{machine}.tar.gz"
    with tempfile.TemporaryDirectory(prefix="prime-sessions-tarball-") as scratch:
        folder = Path(scratch) / top
        folder.mkdir(mode=0o755)
        _copy_bundle(bundle, folder / NAME)
        _install_share(folder / "share")
        shutil.copyfile(HERE / "install.sh", folder / "install.sh")
        (folder / "install.sh").chmod(0o755)
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)

        def owned_by_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            return info

        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with tarfile.open(temporary, "w:gz", compresslevel=6) as archive:
            archive.add(folder, arcname=top, filter=owned_by_root)
        os.replace(temporary, target)
    return target


def main(argv: list[str]) -> int:
    """``deb|tarball BUNDLE_DIR OUT_DIR``: the exit status."""
    if len(argv) != 3 or argv[0] not in ("deb", "tarball"):
        print("usage: linux_package.py deb|tarball BUNDLE_DIR OUT_DIR", file=sys.stderr)
        return 2
    kind, bundle, out = argv[0], Path(argv[1]).resolve(), Path(argv[2]).resolve()
    if not (bundle / NAME).is_file():
        print(f"linux_package: {bundle / NAME} does not exist; build the bundle first", file=sys.stderr)
        return 2
    try:
        target = build_deb(bundle, out) if kind == "deb" else build_tarball(bundle, out)
    except (PackagingError, subprocess.CalledProcessError, OSError) as err:
        print(f"linux_package: {err}", file=sys.stderr)
        return 1
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
