#!/usr/bin/env bash
# usage: make_blob.sh N  -> N bytes on stdout, byte i = (i * 7 + 3) & 0xff
exec python3 -c 'import sys; n = int(sys.argv[1]); sys.stdout.buffer.write(bytes(((i * 7 + 3) & 0xff) for i in range(n)))' "$1"
