#!/bin/sh
# /usr/bin/llm-scout: starts the bundle installed in /opt/llm-scout. The path is found from
# this script's own place, so the launcher of an unpacked package (dpkg-deb -x) runs the
# bundle unpacked beside it.
here=$(dirname "$(readlink -f "$0")")
exec "$here/../../opt/llm-scout/llm-scout" "$@"
