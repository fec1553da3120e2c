#!/bin/sh
# Install Prime Sessions for one user from the unpacked tarball, on machines without dpkg:
#
#     ./install.sh --user              the app in ~/.local/opt/prime-sessions, the command in ~/.local/bin,
#                                      the menu entry, the icon and the session file type in ~/.local/share
#     ./install.sh --user --uninstall  removes exactly what the install added (your sessions, settings,
#                                      catalogue and demo copy are yours and stay)
#
# ~/.local/share is $XDG_DATA_HOME when that is set. Installing again replaces the earlier install. The
# install writes a list of what it added (and of the folders it had to make) to
# ~/.local/opt/prime-sessions/.install-manifest; the uninstall removes those files, then those folders when
# nothing else is left in them, and updates the desktop's caches. Needs only a POSIX shell and coreutils;
# update-mime-database and update-desktop-database are run when they are installed.
set -eu

app=prime-sessions
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=$HOME/.local/bin
opt=$HOME/.local/opt/$app
manifest=$opt/.install-manifest
sizes="16 32 48 64 128 256"

say() { printf '%s\n' "$*"; }
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

usage() {
    say "usage: ./install.sh --user [--uninstall]"
    say "  --user       install for the current user only (under ~/.local); the only kind of install"
    say "  --uninstall  remove what an earlier ./install.sh --user added"
}

user=no
uninstall=no
for arg in "$@"; do
    case $arg in
        --user) user=yes ;;
        --uninstall) uninstall=yes ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
[ "$user" = yes ] || { usage >&2; exit 2; }
[ -n "${HOME:-}" ] && [ -d "$HOME" ] || fail "HOME is not set to a folder."

# ---------------------------------------------------------------------------- the desktop's caches
refresh_caches() {
    if command -v update-mime-database >/dev/null 2>&1 && [ -d "$data/mime" ]; then
        update-mime-database "$data/mime" >/dev/null 2>&1 || true
    fi
    if command -v update-desktop-database >/dev/null 2>&1 && [ -d "$data/applications" ]; then
        update-desktop-database -q "$data/applications" >/dev/null 2>&1 || true
    fi
    # An icon cache is only updated where there is one; without it the theme's folders are read directly.
    if [ -f "$data/icons/hicolor/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -t -f "$data/icons/hicolor" >/dev/null 2>&1 || true
    fi
}

# A folder this install made, once our files are gone: removed when nothing of anyone else's is left in
# it. What update-mime-database generated from our type alone (everything beside an empty packages/) counts
# as ours.
remove_made_folder() {
    folder=$1
    [ -d "$folder" ] || return 0
    if [ "$folder" = "$data/mime" ] && [ -z "$(ls -A "$folder/packages" 2>/dev/null)" ]; then
        rm -rf "$folder"
        return 0
    fi
    rmdir "$folder" 2>/dev/null || true
}

# ---------------------------------------------------------------------------- uninstall
do_uninstall() {
    [ -f "$manifest" ] || fail "Prime Sessions is not installed for this user ($manifest does not exist)."
    folders=$(mktemp)
    caches=$(mktemp)
    while IFS= read -r line; do
        kind=${line%% *}
        path=${line#* }
        case $kind in
            file) rm -f "$path" ;;
            link) if [ -L "$path" ] && [ "$(readlink "$path")" = "$opt/$app" ]; then rm -f "$path"; fi ;;
            dir) printf '%s\n' "$path" >>"$folders" ;;
            made) printf '%s\n' "$path" >>"$caches" ;;
        esac
    done <"$manifest"
    rm -rf "$opt"
    refresh_caches
    # A cache the install made where there was none goes too (after the refresh, which rewrote it).
    while IFS= read -r cache; do rm -f "$cache"; done <"$caches"
    # The folders in the opposite order to their making: the deepest first.
    sed -n '1!G;h;$p' "$folders" | while IFS= read -r folder; do
        remove_made_folder "$folder"
    done
    rm -f "$folders" "$caches"
}

if [ "$uninstall" = yes ]; then
    do_uninstall
    say "Prime Sessions was removed for $(id -un)."
    exit 0
fi

# ---------------------------------------------------------------------------- install
[ -x "$here/$app/$app" ] || fail "$here/$app/$app is missing: run install.sh from the unpacked tarball."
case $opt in
    *'"'* | *'`'* | *'$'* | *'\'*) fail "$opt holds a character a desktop entry cannot quote." ;;
esac
if [ -e "$bin/$app" ] || [ -L "$bin/$app" ]; then
    if ! { [ -L "$bin/$app" ] && [ "$(readlink "$bin/$app")" = "$opt/$app" ]; }; then
        fail "$bin/$app exists and is not an earlier install's; move it away first."
    fi
fi
if [ -f "$manifest" ]; then
    do_uninstall # an earlier install: replaced as a whole
fi

record=$(mktemp)
trap 'rm -f "$record"' EXIT

# mkdir -p that writes each folder it makes to the list, the outermost first.
make_folder() {
    missing=""
    folder=$1
    while [ ! -d "$folder" ]; do
        missing="$folder
$missing"
        folder=$(dirname "$folder")
    done
    mkdir -p "$1"
    printf '%s' "$missing" | while IFS= read -r made; do
        [ -n "$made" ] && printf 'dir %s\n' "$made" >>"$record"
    done
}

# install -m MODE SOURCE TARGET, recorded
put() {
    make_folder "$(dirname "$3")"
    cp "$2" "$3.tmp.$$"
    chmod "$1" "$3.tmp.$$"
    mv -f "$3.tmp.$$" "$3"
    printf 'file %s\n' "$3" >>"$record"
}

make_folder "$(dirname "$opt")"
rm -rf "$opt.tmp.$$"
cp -RP "$here/$app" "$opt.tmp.$$"
mv "$opt.tmp.$$" "$opt"

make_folder "$bin"
ln -sf "$opt/$app" "$bin/$app"
printf 'link %s\n' "$bin/$app" >>"$record"

# The menu entry names the installed binary itself: ~/.local/bin is not on every desktop session's PATH.
entry=$(mktemp)
sed -e "s|^Exec=$app |Exec=\"$opt/$app\" |" -e "s|^TryExec=$app\$|TryExec=$opt/$app|" \
    "$here/share/applications/$app.desktop" >"$entry"
put 644 "$entry" "$data/applications/$app.desktop"
rm -f "$entry"
for size in $sizes; do
    put 644 "$here/share/icons/hicolor/${size}x${size}/apps/$app.png" \
        "$data/icons/hicolor/${size}x${size}/apps/$app.png"
done
put 644 "$here/share/icons/hicolor/scalable/apps/$app.svg" "$data/icons/hicolor/scalable/apps/$app.svg"
put 644 "$here/share/mime/packages/$app.xml" "$data/mime/packages/$app.xml"

for cache in "$data/applications/mimeinfo.cache"; do
    [ -e "$cache" ] || printf 'made %s\n' "$cache" >>"$record"
done
cp "$record" "$manifest"
refresh_caches
say "Prime Sessions $("$opt/$app" --version | sed 's/^prime-sessions //') is installed for $(id -un):"
say "  $bin/$app (the command; the window without arguments), in the menu as Prime Sessions."
case ":$PATH:" in
    *":$bin:"*) ;;
    *) say "  $bin is not on your PATH: add it, or start $opt/$app." ;;
esac
