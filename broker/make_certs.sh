#!/bin/sh
# Make a local certificate authority and the broker's TLS certificates with openssl.
#
#   broker/make_certs.sh [-o DIR] [-d DAYS] [-c CLIENT_NAME]... [-w WEB_NAME]... [SAN]...
#
#   -o DIR     where to write (default: broker/certs next to this script)
#   -d DAYS    validity (default 825)
#   -c NAME    also make a client certificate NAME.crt/NAME.key (CN=NAME); repeatable.
#              Needed only when the broker runs with --require-client-cert; the CN
#              should then be the account's username (board-1, engine-1, ...).
#   -w NAME    also make a web server certificate NAME.crt/NAME.key with the broker's
#              names (e.g. -w dashboard: the dashboard's HTTPS); repeatable.
#   SAN        extra subject alternative names of the broker, e.g. DNS:broker.lan or
#              IP:192.168.1.10 (DNS:localhost, IP:127.0.0.1 and DNS:$(hostname) are always in)
#
# Writes ca.crt / ca.key (keep ca.key off the broker if you can), server.crt / server.key,
# and the client pairs. An existing CA in DIR is reused, so re-running adds names without
# invalidating the clients' ca.crt. Keys are EC P-256, readable by their owner only.
set -eu

out="$(dirname "$0")/certs"
days=825
clients=""
webs=""
while getopts "o:d:c:w:" opt; do
    case "$opt" in
        o) out="$OPTARG" ;;
        d) days="$OPTARG" ;;
        c) clients="$clients $OPTARG" ;;
        w) webs="$webs $OPTARG" ;;
        *) sed -n '2,18p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))

sans="DNS:localhost,IP:127.0.0.1,DNS:$(hostname)"
for san in "$@"; do sans="$sans,$san"; done

mkdir -p "$out"
umask 077
cd "$out"

if [ ! -f ca.key ] || [ ! -f ca.crt ]; then
    openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
        -keyout ca.key -out ca.crt -days "$days" -subj "/CN=Go Learning Buddy local CA" \
        -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
fi

sign() {  # sign NAME CN EXTENSIONS
    openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
        -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
    printf '%s\n' "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial \
        -out "$1.crt" -days "$days" -extfile "$1.ext" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
}

sign server "$(hostname)" "subjectAltName=$sans
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment"

for name in $webs; do
    sign "$name" "$name" "subjectAltName=$sans
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment"
done

for name in $clients; do
    sign "$name" "$name" "extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature"
done

chmod 644 ca.crt server.crt
echo "certificates in $out: ca.crt server.crt server.key${webs:+ web:$webs}${clients:+ clients:$clients}" >&2
