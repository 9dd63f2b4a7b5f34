import Foundation
import Testing

/// The layering rule: no Apple framework import outside `Platform/Apple/`.
@Suite("Layering")
struct LayeringTests {
    static let appleFrameworks = [
        "UIKit", "UserNotifications", "PushKit", "CallKit", "AVFAudio", "AVFoundation", "Intents", "Security", "os", "SwiftUI",
        "CryptoKit",
    ]

    /// OpenSSL (`CCryptoLinux`) is Linux's crypto adapter: imported only in `Platform/Linux/`.
    static func openSSLImports(in sources: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return ["cannot read \(sources.path)"]
        }
        var found: [String] = []
        for case let url as URL in walker where url.pathExtension == "swift" && !url.path.contains("/Platform/Linux/") {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("import CCryptoLinux") {
                found.append("\(url.lastPathComponent): \(line)")
            }
        }
        return found
    }

    static func violations(in sources: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return ["cannot read \(sources.path)"]
        }
        var found: [String] = []
        for case let url as URL in walker where url.pathExtension == "swift" && !url.path.contains("/Platform/Apple/") {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ $0.hasPrefix("@") })
                else { continue }
                let module = words[index + 1].split(separator: ".").first.map(String.init) ?? ""
                if appleFrameworks.contains(module) { found.append("\(url.lastPathComponent): \(line)") }
            }
        }
        return found
    }

    @Test("Apple frameworks are imported only in Platform/Apple")
    func noAppleImportsOutsideAdapters() {
        #expect(Self.violations(in: repositoryRoot.appendingPathComponent("Sources")) == [])
    }

    @Test("OpenSSL is imported only in Platform/Linux, and the check catches it elsewhere")
    func openSSLOnlyInLinuxAdapter() throws {
        #expect(Self.openSSLImports(in: repositoryRoot.appendingPathComponent("Sources")) == [])
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("layering-\(UUID().uuidString)/Engine")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch.deletingLastPathComponent()) }
        try "import CCryptoLinux\nimport CryptoKit\n".write(
            to: scratch.appendingPathComponent("Leak.swift"), atomically: true, encoding: .utf8)
        #expect(Self.openSSLImports(in: scratch.deletingLastPathComponent()).count == 1)
        #expect(Self.violations(in: scratch.deletingLastPathComponent()).count == 1)
    }

    @Test("The check catches an import in the wrong place")
    func checkerCatchesLeak() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("layering-\(UUID().uuidString)/Engine")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch.deletingLastPathComponent()) }
        try "import Foundation\n@preconcurrency import UserNotifications\n".write(
            to: scratch.appendingPathComponent("Leak.swift"), atomically: true, encoding: .utf8)
        #expect(Self.violations(in: scratch.deletingLastPathComponent()).count == 1)
    }
}
