#!/usr/bin/env bash
# Install, start and remove the Linux packages of a bundle: packaging/check_packages.sh DEB TARBALL
#
# The .deb: installed with apt-get (as root, or through sudo -n), then the installed command is started
# from an empty folder with its own HOME (--version, --smoke-test and --scripted-check offscreen), the desktop
# entry, the icon and the session file type are checked where the desktop looks for them, and the package
# is purged; the files under the folders it installs into, and the list of installed packages, must then be
# as they were (what apt-get pulled in for it is purged too). A machine that has prime-sessions installed
# already is left alone (an error).
# The tarball: unpacked and installed with install.sh --user into a temporary HOME, started, uninstalled;
# the HOME must then be empty again.
# .ci/run runs this after building the packages; it prints one line per check and exits 1 if any failed.
set -uo pipefail

deb=$(realpath "$1")
tarball=$(realpath "$2")
failed=0
ok() { printf 'ok    %s\n' "$*"; }
bad() { printf 'FAIL  %s\n' "$*"; failed=1; }
check() { # check WHAT COMMAND...: ok when the command succeeds
    local what=$1
    shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Start an installed command the way check_bundle.py starts the bundle: empty folder, private HOME.
start_app() { # start_app NAME COMMAND ARGS...
    local place=$scratch/$1
    shift
    mkdir -p "$place/cwd" "$place/home" "$place/out"
    env -C "$place/cwd" HOME="$place/home" XDG_CONFIG_HOME="$place/config" XDG_CACHE_HOME="$place/cache" \
        XDG_DATA_HOME="$place/data" QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 \
        timeout 300 "$@" </dev/null
}

started_ok() { # started_ok NAME COMMAND: --version, --smoke-test and --scripted-check of an installed app
    local name=$1 command=$2
    check "$name: $command --version" start_app "$name" "$command" --version
    check "$name: --smoke-test offscreen" start_app "$name" "$command" --smoke-test
    check "$name: --scripted-check offscreen (diff, HTML and PDF exports)" \
        start_app "$name" "$command" --scripted-check "$scratch/$name/out"
}

# ---------------------------------------------------------------------------- the .deb
if [[ $(id -u) -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    as_root=(false)
fi

# What the package installs into, and the packages installed: compared before and after.
installed_state() {
    find /opt /usr/bin /usr/share/applications /usr/share/icons/hicolor /usr/share/mime /usr/share/doc \
        -xdev -print 2>/dev/null | LC_ALL=C sort
    dpkg-query -W -f='package ${Package} ${Status}\n' | LC_ALL=C sort
}

if [[ ${as_root[0]:-} == false ]]; then
    bad "deb: cannot install it (neither root nor sudo -n)"
elif dpkg-query -W -f='${Status}' prime-sessions 2>/dev/null | grep -q 'installed'; then
    bad "deb: prime-sessions is installed on this machine already; it is left alone"
else
    installed_state >"$scratch/before"
    dpkg-query -W -f='${Package}\n' | LC_ALL=C sort >"$scratch/packages-before"
    if DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y --no-install-recommends "$deb" \
        </dev/null >"$scratch/apt.log" 2>&1; then
        ok "deb: apt-get install $(basename "$deb")"
        check "deb: /usr/bin/prime-sessions is the bundle in /opt" \
            test "$(readlink -f /usr/bin/prime-sessions)" = /opt/prime-sessions/prime-sessions
        started_ok deb /usr/bin/prime-sessions
        check "deb: the menu entry is valid" desktop-file-validate /usr/share/applications/prime-sessions.desktop
        check "deb: the icon is in the hicolor theme" \
            test -f /usr/share/icons/hicolor/256x256/apps/prime-sessions.png -a \
            -f /usr/share/icons/hicolor/scalable/apps/prime-sessions.svg
        if command -v update-mime-database >/dev/null 2>&1; then
            check "deb: .jsonl files are session files (shared-mime-info)" \
                grep -qx 'application/x-prime-session:\*.jsonl' /usr/share/mime/globs
        fi
        if command -v update-desktop-database >/dev/null 2>&1; then
            check "deb: session files open with Prime Sessions" \
                grep -q '^application/x-prime-session=.*prime-sessions.desktop' \
                /usr/share/applications/mimeinfo.cache
        fi
        dpkg-query -W -f='${Package}\n' | LC_ALL=C sort >"$scratch/packages-during"
        mapfile -t pulled < <(comm -13 "$scratch/packages-before" "$scratch/packages-during" | grep -vx prime-sessions)
        if DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get purge -y prime-sessions "${pulled[@]}" \
            </dev/null >>"$scratch/apt.log" 2>&1; then
            ok "deb: apt-get purge prime-sessions${pulled[*]:+ (and ${pulled[*]}, pulled in for it)}"
        else
            bad "deb: apt-get purge failed: $(tail -5 "$scratch/apt.log")"
        fi
        installed_state >"$scratch/after"
        if diff "$scratch/before" "$scratch/after" >"$scratch/left"; then
            ok "deb: nothing left behind (files under /opt, /usr/bin, /usr/share/{applications,icons,mime,doc}; packages)"
        else
            bad "deb: the machine is not as it was:"
            head -20 "$scratch/left"
        fi
    else
        bad "deb: apt-get install failed: $(tail -5 "$scratch/apt.log")"
    fi
fi

# ---------------------------------------------------------------------------- the tarball
home=$scratch/tarball-home
mkdir -p "$home" "$scratch/unpacked"
tar -C "$scratch/unpacked" -xzf "$tarball"
script=$(echo "$scratch"/unpacked/*/install.sh)
if env HOME="$home" LC_ALL=C.UTF-8 sh "$script" --user >"$scratch/install.log" 2>&1; then
    ok "tarball: install.sh --user into a temporary HOME"
    started_ok tarball "$home/.local/bin/prime-sessions"
    check "tarball: the menu entry is valid" \
        desktop-file-validate "$home/.local/share/applications/prime-sessions.desktop"
    if command -v update-mime-database >/dev/null 2>&1; then
        check "tarball: .jsonl files are session files for that user" \
            grep -qx 'application/x-prime-session:\*.jsonl' "$home/.local/share/mime/globs"
    fi
    if env HOME="$home" sh "$script" --user --uninstall >>"$scratch/install.log" 2>&1; then
        ok "tarball: install.sh --user --uninstall"
    else
        bad "tarball: install.sh --user --uninstall failed: $(tail -3 "$scratch/install.log")"
    fi
    left=$(find "$home" -mindepth 1 | head -5)
    if [[ -z $left ]]; then ok "tarball: the HOME is empty again"; else bad "tarball: left in HOME: $left"; fi
else
    bad "tarball: install.sh --user failed: $(tail -3 "$scratch/install.log")"
fi

exit "$failed"
