#!/bin/sh
# Adds LLM Scout from this unpacked folder to your application menu (no root needed):
# a menu entry and icons under ~/.local/share, and a `llm-scout` command in ~/.local/bin.
# Run it again after moving the folder; `./install.sh --remove` takes them away again
# (your models and settings stay in ~/.local/share/llm-scout and ~/.config/llm-scout).
set -e
here=$(dirname "$(readlink -f "$0")")
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=$HOME/.local/bin
if [ "$1" = "--remove" ]; then
    rm -f "$data/applications/llm-scout.desktop" "$bin/llm-scout"
    find "$data/icons/hicolor" -name 'llm-scout.*' -delete 2>/dev/null || true
    echo "LLM Scout removed from the menu."
    exit 0
fi
mkdir -p "$data/applications" "$bin"
(cd "$here/usr/share" && find icons -name 'llm-scout.*') | while read -r icon; do
    mkdir -p "$data/$(dirname "$icon")"
    cp "$here/usr/share/$icon" "$data/$icon"
done
sed "s|^Exec=llm-scout|Exec=\"$here/AppRun\"|; s|^TryExec=.*|TryExec=$here/AppRun|" \
    "$here/llm-scout.desktop" > "$data/applications/llm-scout.desktop"
ln -sf "$here/AppRun" "$bin/llm-scout"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
echo "LLM Scout is in your application menu; \`llm-scout\` runs it from a terminal (~/.local/bin)."
