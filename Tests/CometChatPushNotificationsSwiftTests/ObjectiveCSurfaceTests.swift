import Foundation
import Testing

/// A protocol the app implements is declared twice where Swift requires it: with Objective-C
/// `optional` requirements (or `@objc` selectors) where there is Objective-C, and plainly, with
/// default implementations, elsewhere (`#if` cannot wrap `@objc optional`). Both declarations
/// sit side by side in one file of an `API/ObjectiveC/` folder. Linux compiles only the second
/// and the iOS compile check only the first, so nothing but this test sees both: it reads each
/// such file and fails when the two sides' requirements, defaults or `pn…` calls differ.
@Suite("Objective-C surface")
struct ObjectiveCSurfaceTests {
    /// The files of `API/ObjectiveC/` folders that declare something on both sides of their `#if`.
    static func dualDeclarationFiles() throws -> [URL] {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        var found: [URL] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let folder = sources.appendingPathComponent(module).appendingPathComponent("API/ObjectiveC")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".swift") {
                let url = folder.appendingPathComponent(name)
                if try String(contentsOf: url, encoding: .utf8).split(separator: "\n").contains("#else") { found.append(url) }
            }
        }
        return found
    }

    @Test("Each protocol declared twice has the same requirements, defaults and calls on both sides")
    func bothSidesMatch() throws {
        let files = try Self.dualDeclarationFiles()
        #expect(
            Set(files.map(\.lastPathComponent)) == [
                "CometChatPushNotificationsDelegate.swift", "CometChatPushNotificationsChatDelegate.swift",
                "CometChatPushNotificationsCallsDelegate.swift", "PNCallMediaSession.swift",
            ])
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let sides = try #require(DualDeclarations(text), "\(file.lastPathComponent): no #if/#else/#endif around the whole file")
            #expect(!sides.apple.protocols.isEmpty, "\(file.lastPathComponent) declares no protocol")
            for (name, requirements) in sides.apple.protocols {
                #expect(!requirements.isEmpty, "\(file.lastPathComponent): no requirement read from \(name)")
            }
            #expect(sides.mismatches == [], "\(file.lastPathComponent)")
        }
    }

    @Test("The comparison fails when one side gains or loses a requirement, a default or a call")
    func comparisonCatchesDrift() throws {
        let file = repositoryRoot.appendingPathComponent(
            "Sources/CometChatPushNotificationsSwift/API/ObjectiveC/CometChatPushNotificationsDelegate.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(try #require(DualDeclarations(text)).mismatches == [])

        // A requirement only on the Linux side (with its default, so that side compiles).
        let linuxOnly = try Self.mutate(
            text, after: "    func navigateToDefaultScreen()\n",
            insert: "    func didOpenSettings()\n", occurrence: 0)
        #expect(try #require(DualDeclarations(linuxOnly)).mismatches.contains { $0.contains("didOpenSettings") })

        // A requirement only on the Objective-C side.
        let appleOnly = try Self.mutate(
            text, after: "    @objc optional func navigateToDefaultScreen()\n",
            insert: "    @objc optional func didOpenSettings()\n", occurrence: 0)
        #expect(try #require(DualDeclarations(appleOnly)).mismatches.contains { $0.contains("didOpenSettings") })

        // The same requirement with another parameter type on one side.
        let retyped = try Self.mutate(
            text, replacing: "func onPushTokenRegistered(platform: CometChatPushTokenPlatform)\n",
            with: "func onPushTokenRegistered(platform: String)\n", occurrence: 1)
        #expect(try #require(DualDeclarations(retyped)).mismatches.contains { $0.contains("onPushTokenRegistered") })

        // A requirement without a default on the Linux side: apps would have to implement it there.
        let noDefault = try Self.mutate(
            text, replacing: "    public func navigateToDefaultScreen() { PNDelegateProbe.markUnimplemented() }\n",
            with: "", occurrence: 0)
        #expect(try #require(DualDeclarations(noDefault)).mismatches.contains { $0.contains("default") })

        // A pn… call on one side only.
        let renamedCall = try Self.mutate(text, replacing: "pnNavigateToDefaultScreen", with: "pnGoHome", occurrence: 0)
        #expect(try #require(DualDeclarations(renamedCall)).mismatches.contains { $0.contains("pnGoHome") })
    }

    /// `text` with `insert` after the `occurrence`-th (from 0) appearance of `after`.
    static func mutate(_ text: String, after: String, insert: String, occurrence: Int) throws -> String {
        let ranges = text.ranges(of: after)
        let range = try #require(ranges.count > occurrence ? ranges[occurrence] : nil, "'\(after)' not found")
        var copy = text
        copy.insert(contentsOf: insert, at: range.upperBound)
        return copy
    }

    /// `text` with the `occurrence`-th (from 0) appearance of `replacing` replaced by `with`.
    static func mutate(_ text: String, replacing: String, with: String, occurrence: Int) throws -> String {
        let ranges = text.ranges(of: replacing)
        let range = try #require(ranges.count > occurrence ? ranges[occurrence] : nil, "'\(replacing)' not found")
        var copy = text
        copy.replaceSubrange(range, with: with)
        return copy
    }
}

/// The two sides of a file wholly inside `#if canImport(ObjectiveC)` … `#else` … `#endif`.
struct DualDeclarations {
    /// What one side of the `#if` declares.
    struct Side {
        /// Each protocol's requirements, normalised (`func f(_ x: T)`), in order.
        var protocols: [String: [String]] = [:]
        /// The requirements marked `optional`.
        var optional: Set<String> = []
        /// The signatures of functions declared in extensions of the protocols, normalised.
        var extensionMembers: [String: [String]] = [:]
    }

    let apple: Side
    let other: Side

    init?(_ text: String) {
        let lines = text.components(separatedBy: "\n")
        guard let first = lines.firstIndex(where: { !$0.isEmpty }), lines[first] == "#if canImport(ObjectiveC)",
            let last = lines.lastIndex(where: { !$0.isEmpty }), lines[last] == "#endif"
        else { return nil }
        var depth = 0
        var elseLine: Int?
        for index in (first + 1)..<last {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if") { depth += 1 }
            if line.hasPrefix("#endif") { depth -= 1 }
            if line == "#else", depth == 0 { elseLine = index }
        }
        guard let elseLine else { return nil }
        apple = Self.side(Array(lines[(first + 1)..<elseLine]))
        other = Self.side(Array(lines[(elseLine + 1)..<last]))
    }

    /// Every difference between the sides, as sentences; empty when they match.
    var mismatches: [String] {
        var found: [String] = []
        for name in Set(apple.protocols.keys).union(other.protocols.keys).sorted() {
            let appleRequirements = apple.protocols[name] ?? []
            let otherRequirements = other.protocols[name] ?? []
            if appleRequirements != otherRequirements {
                found.append(
                    "\(name): requirements differ: Objective-C side \(appleRequirements), other side \(otherRequirements)")
            }
            // An optional requirement needs a default where `optional` does not exist, and only it.
            let defaults = Set(other.extensionMembers[name] ?? []).intersection(otherRequirements)
            let optional = Set(appleRequirements).intersection(apple.optional)
            for missing in optional.subtracting(defaults).sorted() {
                found.append("\(name): optional requirement with no default on the other side: \(missing)")
            }
            for extra in defaults.subtracting(optional).sorted() {
                found.append("\(name): default on the other side for a requirement that is not optional: \(extra)")
            }
            let appleCalls = Set(apple.extensionMembers[name] ?? [])
            let otherCalls = Set(other.extensionMembers[name] ?? []).subtracting(otherRequirements)
            for call in appleCalls.symmetricDifference(otherCalls).sorted() {
                found.append("\(name): extension function on one side only: \(call)")
            }
        }
        return found
    }

    /// Reads the protocols and the functions of the protocols' extensions in `lines`.
    private static func side(_ lines: [String]) -> Side {
        var side = Side()
        var index = 0
        while index < lines.count {
            let line = code(lines[index])
            if let name = declared("protocol", in: line) {
                let (body, end) = block(lines, from: index)
                var requirements: [String] = []
                for declaration in declarations(body) {
                    let normalised = normalise(declaration)
                    requirements.append(normalised)
                    if declaration.split(separator: " ").contains("optional") { side.optional.insert(normalised) }
                }
                side.protocols[name] = requirements
                index = end
            } else if let name = declared("extension", in: line) {
                let (body, end) = block(lines, from: index)
                side.extensionMembers[name, default: []] += declarations(body).map(normalise)
                index = end
            }
            index += 1
        }
        return side
    }

    /// The name after `keyword` when `line` declares one (`public protocol X: Y {`).
    private static func declared(_ keyword: String, in line: String) -> String? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "{" }).map(String.init)
        guard let position = words.firstIndex(of: keyword), position + 1 < words.count else { return nil }
        guard words[..<position].allSatisfy({ $0 == "public" || $0.hasPrefix("@") }) else { return nil }
        return words[position + 1]
    }

    /// The lines between the line at `start`, which opens a brace, and the line that closes it
    /// (returned too).
    private static func block(_ lines: [String], from start: Int) -> ([String], Int) {
        var depth = 0
        for index in start..<lines.count {
            for character in code(lines[index]) {
                if character == "{" { depth += 1 }
                if character == "}" { depth -= 1 }
            }
            if depth == 0, index > start { return (Array(lines[(start + 1)..<index]), index) }
        }
        return (Array(lines[(start + 1)...]), lines.count)
    }

    /// The function and property declarations directly inside `body` (not in nested braces), each
    /// with its attribute lines, up to its own `{` if it has a body.
    private static func declarations(_ body: [String]) -> [String] {
        var found: [String] = []
        var pending = ""
        var depth = 0
        for raw in body {
            let line = code(raw).trimmingCharacters(in: .whitespaces)
            if depth == 0, !line.isEmpty {
                let head = line.split(separator: "{", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                pending += (pending.isEmpty ? "" : " ") + head
                let words = pending.split(separator: " ")
                if words.contains("func") || words.contains("var") {
                    if pending.filter({ $0 == "(" }).count == pending.filter({ $0 == ")" }).count {
                        found.append(pending)
                        pending = ""
                    }
                } else if !line.hasPrefix("@") {
                    pending = ""
                }
            }
            for character in line {
                if character == "{" { depth += 1 }
                if character == "}" { depth -= 1 }
            }
        }
        return found
    }

    /// A declaration without attributes, access level, `optional` and extra spaces.
    private static func normalise(_ declaration: String) -> String {
        var words: [String] = []
        var skipping = 0
        for word in declaration.split(separator: " ").map(String.init) {
            if skipping > 0 || word.hasPrefix("@") {
                skipping += word.filter { $0 == "(" }.count - word.filter { $0 == ")" }.count
                skipping = max(skipping, 0)
                continue
            }
            if ["public", "open", "optional"].contains(word) { continue }
            words.append(word)
        }
        return words.joined(separator: " ")
    }

    /// `line` without a `//` comment.
    private static func code(_ line: String) -> String {
        guard let range = line.range(of: "//") else { return line }
        return String(line[..<range.lowerBound])
    }
}
