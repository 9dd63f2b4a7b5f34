#!/bin/sh
# Makes a throwaway test CA and a server certificate for 127.0.0.1 / localhost / ::1 in $1,
# plus the keys the mocks verify JWTs with. Run at test time; never commit the output.
#   $1/ca.pem                      CA certificate (trust this in clients)
#   $1/server.pem, server.key      server certificate and key
#   $1/apns.p8, apns.pub.pem       APNs signing key (P-256, PKCS#8) and its public key
#   $1/fcm.pem, fcm.pub.pem        FCM service-account key (RSA 2048) and its public key
set -eu
dir="$1"
mkdir -p "$dir"
cd "$dir"
[ -f server.pem ] && [ -f apns.p8 ] && [ -f fcm.pem ] && exit 0
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=Push Test CA" -keyout ca.key -out ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\n' > ext.cnf
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -extfile ext.cnf -out server.pem 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out apns.p8
openssl pkey -in apns.p8 -pubout -out apns.pub.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out fcm.pem 2>/dev/null
openssl pkey -in fcm.pem -pubout -out fcm.pub.pem
rm -f server.csr ext.cnf ca.srl
