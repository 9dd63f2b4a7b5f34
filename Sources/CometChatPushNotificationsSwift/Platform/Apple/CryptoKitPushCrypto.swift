#if canImport(CryptoKit) && canImport(Security)
import CryptoKit
import Foundation
import Security

/// ``PNPushCrypto`` on CryptoKit: `P256.KeyAgreement` for keys and ECDH, `HKDF<SHA256>`,
/// `AES.GCM`, `SHA256`, and the keychain's `SecRandomCopyBytes`. Converts and forwards only.
struct CryptoKitPushCrypto: PNPushCrypto {
    func generateP256KeyPair() throws -> PNP256KeyPair {
        let key = P256.KeyAgreement.PrivateKey()
        return PNP256KeyPair(privateKey: Array(key.rawRepresentation), publicKey: Array(key.publicKey.x963Representation))
    }

    func sharedSecret(_ keyPair: PNP256KeyPair, peerPublicKey: [UInt8]) throws -> [UInt8] {
        let peer: P256.KeyAgreement.PublicKey
        do {
            peer = try P256.KeyAgreement.PublicKey(x963Representation: peerPublicKey)
        } catch {
            throw PNPushCryptoError.invalidPublicKey
        }
        let own: P256.KeyAgreement.PrivateKey
        do {
            own = try P256.KeyAgreement.PrivateKey(rawRepresentation: keyPair.privateKey)
        } catch {
            throw PNPushCryptoError.invalidPrivateKey
        }
        do {
            let secret = try own.sharedSecretFromKeyAgreement(with: peer)
            return secret.withUnsafeBytes { Array($0) }
        } catch {
            throw PNPushCryptoError.failure("ECDH")
        }
    }

    func hkdfSHA256(
        inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int
    ) throws
        -> [UInt8]
    {
        guard outputByteCount > 0, outputByteCount <= 255 * 32 else { throw PNPushCryptoError.failure("HKDF output length") }
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: inputKeyMaterial), salt: salt, info: info, outputByteCount: outputByteCount)
        return key.withUnsafeBytes { Array($0) }
    }

    func openAES128GCM(key: [UInt8], nonce: [UInt8], ciphertextAndTag: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, nonce.count == 12 else { throw PNPushCryptoError.failure("AES-128-GCM key or nonce length") }
        guard ciphertextAndTag.count >= 16 else { throw PNPushCryptoError.authenticationFailed }
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertextAndTag.dropLast(16), tag: ciphertextAndTag.suffix(16))
        } catch {
            throw PNPushCryptoError.failure("AES-128-GCM sealed box")
        }
        do {
            return Array(try AES.GCM.open(box, using: SymmetricKey(data: key)))
        } catch {
            throw PNPushCryptoError.authenticationFailed
        }
    }

    func sealAES128GCM(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, nonce.count == 12 else { throw PNPushCryptoError.failure("AES-128-GCM key or nonce length") }
        do {
            let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: nonce))
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw PNPushCryptoError.failure("AES-128-GCM")
        }
    }

    func sha256(_ bytes: [UInt8]) throws -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }

    func randomBytes(count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard SecRandomCopyBytes(kSecRandomDefault, count, &bytes) == errSecSuccess else { throw PNPushCryptoError.failure("random bytes") }
        return bytes
    }
}
#endif
