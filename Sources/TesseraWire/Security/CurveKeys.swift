import CZeroMQ
import FoundationEssentials
import TesseraCore

/// A CurveZMQ key pair (RFC 26), both halves as 40 Z85 characters: the form libzmq's
/// socket options take and the key files hold.
package struct CurveKeyPair: Sendable, Equatable {
    package let publicKey: String
    package let secretKey: String

    /// A fresh pair from libzmq (libsodium's random source underneath).
    package static func generate() throws -> CurveKeyPair {
        try CurveSupport.check()
        var publicKey = [CChar](repeating: 0, count: 41), secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return CurveKeyPair(publicKey: String(cBuffer: publicKey), secretKey: String(cBuffer: secretKey))
    }

    /// A pair read from a file: the secret half must give the public half, so a key file
    /// spliced from two pairs is caught here, not as a refused handshake later.
    package static func checked(publicKey: String, secretKey: String) throws -> CurveKeyPair {
        guard CurveKey.isWellFormed(publicKey), CurveKey.isWellFormed(secretKey) else {
            throw TesseraError("a key is not 40 Z85 characters")
        }
        var derived = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&derived, secretKey) == 0, String(cBuffer: derived) == publicKey else {
            throw TesseraError("its secret key does not belong to its public key")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    private init(publicKey: String, secretKey: String) {
        (self.publicKey, self.secretKey) = (publicKey, secretKey)
    }
}

/// Keys in Z85, the text form of a 32-byte Curve25519 key.
package enum CurveKey {
    private static let alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")

    package static func isWellFormed(_ text: String) -> Bool {
        text.count == 40 && text.allSatisfy(alphabet.contains)
    }

    /// The Z85 text of a raw 32-byte key, as a ZAP request carries it.
    package static func z85(_ raw: [UInt8]) -> String? {
        guard raw.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        guard zmq_z85_encode(&text, raw, 32) != nil else { return nil }
        return String(cBuffer: text)
    }

    /// The first characters of a key: enough to tell keys apart in a log line.
    package static func short(_ key: String) -> String { String(key.prefix(8)) + "…" }
}

package enum CurveSupport {
    /// Debian's libzmq is built with libsodium; a build without it cannot encrypt at all.
    package static func check() throws {
        guard zmq_has("curve") != 0 else {
            throw TesseraError("this libzmq was built without CURVE security",
                               fix: "install a libzmq built with libsodium (Debian's libzmq5 is)")
        }
    }
}
