import Foundation
import Testing

/// What neither the simulator nor the iOS compile sees: the example apps' project files
/// (XcodeGen `project.yml`, Info.plist, entitlements, `Config.swift`). A device punishes each
/// mistake here, silently: no avatar on chat notifications, no call back from Recents, no
/// VoIP pushes, receipts sent twice.
@Suite("Example projects")
struct ExampleProjectTests {
    static let examples = repositoryRoot.appendingPathComponent("Examples")

    @Test("ChatAndCallsApp's project files are what a device needs")
    func chatAndCallsApp() throws {
        #expect(try ExampleProjectChecker(appFolder: Self.examples.appendingPathComponent("ChatAndCallsApp")).problems() == [])
    }

    @Test("CallsOnlyApp's project files are what a device needs")
    func callsOnlyApp() throws {
        #expect(try ExampleProjectChecker(appFolder: Self.examples.appendingPathComponent("CallsOnlyApp")).problems() == [])
    }

    @Test("The check reads both examples' targets")
    func readsTargets() throws {
        let chat = try ExampleProjectChecker(appFolder: Self.examples.appendingPathComponent("ChatAndCallsApp"))
        #expect(chat.targets.map(\.name).sorted() == ["ChatAndCallsApp", "NotificationService"])
        #expect(chat.targets.first { $0.name == "NotificationService" }?.type == "app-extension")
        let calls = try ExampleProjectChecker(appFolder: Self.examples.appendingPathComponent("CallsOnlyApp"))
        #expect(calls.targets.map(\.name) == ["CallsOnlyApp"])
        #expect(calls.targets.first?.products == ["CometChatPushNotificationsSwift", "CometChatPushNotificationsCalls"])
    }

    /// One mistake in one file of a scratch copy of an example, and the problem it must cause.
    struct Breakage: CustomTestStringConvertible, Sendable {
        let app: String
        let file: String
        let replacing: String
        let with: String
        let expected: String

        var testDescription: String { "\(app)/\(file): \(expected)" }
    }

    static let chatInfo = "Resources/ChatAndCallsApp/Info.plist"
    static let chatEntitlements = "Resources/ChatAndCallsApp/ChatAndCallsApp.entitlements"
    static let extensionInfo = "Resources/NotificationService/Info.plist"
    static let extensionEntitlements = "Resources/NotificationService/NotificationService.entitlements"
    static let callsInfo = "Resources/CallsOnlyApp/Info.plist"

    static let breakages: [Breakage] = [
        Breakage(
            app: "ChatAndCallsApp", file: chatEntitlements,
            replacing: "<key>com.apple.developer.usernotifications.communication</key>", with: "<key>unrelated</key>",
            expected: "com.apple.developer.usernotifications.communication"),
        Breakage(
            app: "ChatAndCallsApp", file: chatInfo, replacing: "<string>INSendMessageIntent</string>", with: "",
            expected: "INSendMessageIntent"),
        Breakage(
            app: "ChatAndCallsApp", file: chatInfo, replacing: "<string>INStartCallIntent</string>", with: "",
            expected: "INStartCallIntent"),
        Breakage(
            app: "CallsOnlyApp", file: callsInfo, replacing: "<string>INStartCallIntent</string>", with: "",
            expected: "INStartCallIntent"),
        Breakage(
            app: "ChatAndCallsApp", file: "Sources/ChatAndCallsApp/AppDelegate+Recents.swift",
            replacing: "continue userActivity: NSUserActivity", with: "continueActivity userActivity: NSUserActivity",
            expected: "application(_:continue:restorationHandler:)"),
        Breakage(
            app: "CallsOnlyApp", file: "Sources/CallsOnlyApp/AppDelegate+Recents.swift",
            replacing: "extension AppDelegate", with: "extension RootView", expected: "application(_:continue:restorationHandler:)"),
        Breakage(
            app: "CallsOnlyApp", file: "Sources/CallsOnlyApp/CallsOnlyApp.swift", replacing: ".onContinueUserActivity(",
            with: ".onAppear(", expected: "onContinueUserActivity"),
        Breakage(
            app: "ChatAndCallsApp", file: chatInfo, replacing: "<string>voip</string>", with: "", expected: "voip"),
        Breakage(
            app: "CallsOnlyApp", file: callsInfo, replacing: "<string>voip</string>", with: "", expected: "voip"),
        Breakage(
            app: "ChatAndCallsApp", file: chatInfo, replacing: "<string>remote-notification</string>", with: "",
            expected: "remote-notification"),
        Breakage(
            app: "ChatAndCallsApp", file: extensionEntitlements, replacing: "<string>group.com.example.pushdemo</string>",
            with: "<string>group.com.example.other</string>", expected: "App Group"),
        Breakage(
            app: "ChatAndCallsApp", file: chatEntitlements, replacing: "<string>group.com.example.pushdemo</string>",
            with: "<string>group.com.example.other</string>", expected: "App Group"),
        Breakage(
            app: "ChatAndCallsApp", file: extensionInfo, replacing: "<string>group.com.example.pushdemo</string>",
            with: "<string>group.com.example.other</string>", expected: "App Group"),
        Breakage(
            app: "ChatAndCallsApp", file: "Sources/ChatAndCallsApp/Config.swift", replacing: "\"group.com.example.pushdemo\"",
            with: "\"group.com.example.other\"", expected: "App Group"),
        Breakage(
            app: "ChatAndCallsApp", file: "project.yml",
            replacing: "never goes into an extension.\n    dependencies:\n",
            with: "never goes into an extension.\n    dependencies:\n      - package: CometChatPushNotifications\n"
                + "        product: CometChatPushNotificationsCalls\n",
            expected: "links the Calls product"),
        Breakage(
            app: "ChatAndCallsApp", file: chatEntitlements, replacing: "<key>aps-environment</key>", with: "<key>unrelated-key</key>",
            expected: "aps-environment"),
        Breakage(
            app: "CallsOnlyApp", file: "Resources/CallsOnlyApp/CallsOnlyApp.entitlements", replacing: "<key>aps-environment</key>",
            with: "<key>unrelated-key</key>", expected: "aps-environment"),
    ]

    @Test("Each mistake in a project file is caught", arguments: breakages)
    func catchesBreakage(_ breakage: Breakage) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("example-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let copy = scratch.appendingPathComponent(breakage.app)
        try FileManager.default.copyItem(at: Self.examples.appendingPathComponent(breakage.app), to: copy)

        let before = try ExampleProjectChecker(appFolder: copy).problems()
        #expect(before == [], "the unbroken copy must pass")

        let file = copy.appendingPathComponent(breakage.file)
        let text = try String(contentsOf: file, encoding: .utf8)
        try #require(text.contains(breakage.replacing), "the breakage must change \(breakage.file)")
        try text.replacingOccurrences(of: breakage.replacing, with: breakage.with).write(to: file, atomically: true, encoding: .utf8)

        let after = try ExampleProjectChecker(appFolder: copy).problems()
        #expect(after.contains { $0.contains(breakage.expected) }, "\(after)")
    }
}

/// Reads one example's project files and lists what a device would punish. Rules, per target
/// of `project.yml`:
/// - every application: `aps-environment` in its entitlements; with the Calls product, `voip` in
///   `UIBackgroundModes`, `INStartCallIntent` in `NSUserActivityTypes`, an app delegate with
///   `application(_:continue:restorationHandler:)` and, in a SwiftUI app (whose scenes get user
///   activities instead of the app delegate), `onContinueUserActivity`; with the Chat product
///   or a silent-push handler, `remote-notification`; with the Chat product, the communication
///   notifications entitlement and `INSendMessageIntent` (on the app, not the extension);
/// - every app extension: never the Calls product; one App Group, the same in its
///   `CometChatExtensionGroupID`, both targets' entitlements and `Config.extensionGroupID`.
struct ExampleProjectChecker {
    struct Target {
        var name: String
        var type = ""
        var sources: [String] = []
        var infoPlist: String?
        var entitlements: String?
        var products: [String] = []
        var targetDependencies: [String] = []
    }

    let appFolder: URL
    let targets: [Target]

    static let callsProduct = "CometChatPushNotificationsCalls"
    static let chatProduct = "CometChatPushNotificationsChat"

    init(appFolder: URL) throws {
        self.appFolder = appFolder
        let yml = try String(contentsOf: appFolder.appendingPathComponent("project.yml"), encoding: .utf8)
        targets = Self.parseTargets(yml)
    }

    /// The targets of an XcodeGen spec, read line by line: `targets:` holds two-space-indented
    /// names, each with `type:`, a `sources:` list, `INFOPLIST_FILE`, `CODE_SIGN_ENTITLEMENTS` and
    /// `dependencies:` (`product:` and `- target:` entries).
    static func parseTargets(_ yml: String) -> [Target] {
        var targets: [Target] = []
        var inTargets = false
        var section = ""
        for rawLine in yml.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(rawLine)
            if let hash = line.range(of: " #") { line = String(line[..<hash.lowerBound]) }
            if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let indent = line.prefix { $0 == " " }.count
            let content = line.trimmingCharacters(in: .whitespaces)
            if indent == 0 {
                inTargets = content == "targets:"
                continue
            }
            guard inTargets else { continue }
            if indent == 2, content.hasSuffix(":") {
                targets.append(Target(name: String(content.dropLast())))
                section = ""
                continue
            }
            guard !targets.isEmpty else { continue }
            let (key, value) = keyValue(content)
            if indent == 4 {
                section = key
                if key == "type" { targets[targets.count - 1].type = value }
                continue
            }
            switch (section, key) {
            case ("sources", _) where content.hasPrefix("- ") && value.isEmpty:
                targets[targets.count - 1].sources.append(String(content.dropFirst(2)))
            case ("sources", "- path"): targets[targets.count - 1].sources.append(value)
            case ("settings", "INFOPLIST_FILE"): targets[targets.count - 1].infoPlist = value
            case ("settings", "CODE_SIGN_ENTITLEMENTS"): targets[targets.count - 1].entitlements = value
            case ("dependencies", "product"): targets[targets.count - 1].products.append(value)
            case ("dependencies", "- target"): targets[targets.count - 1].targetDependencies.append(value)
            default: break
            }
        }
        return targets
    }

    private static func keyValue(_ content: String) -> (String, String) {
        guard let colon = content.firstIndex(of: ":") else { return (content, "") }
        let key = content[..<colon].trimmingCharacters(in: .whitespaces)
        var value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        return (key, value)
    }

    /// Every problem found, as sentences naming the file and the key; empty when all is well.
    func problems() throws -> [String] {
        var problems: [String] = []
        if targets.isEmpty { problems.append("project.yml: no targets") }
        for target in targets {
            switch target.type {
            case "application": problems += try applicationProblems(target)
            case "app-extension": problems += try extensionProblems(target)
            default: problems.append("project.yml: \(target.name) has type '\(target.type)'")
            }
        }
        return problems
    }

    private func applicationProblems(_ app: Target) throws -> [String] {
        var problems: [String] = []
        let info = try plist(app.infoPlist, of: app, kind: "INFOPLIST_FILE", problems: &problems)
        let entitlements = try plist(app.entitlements, of: app, kind: "CODE_SIGN_ENTITLEMENTS", problems: &problems)
        let infoName = app.infoPlist ?? "Info.plist"
        let entitlementsName = app.entitlements ?? "entitlements"
        let backgroundModes = info["UIBackgroundModes"] as? [String] ?? []
        let activityTypes = info["NSUserActivityTypes"] as? [String] ?? []
        let sources = try swiftSources(of: app)
        let allSource = sources.map(\.text).joined(separator: "\n")

        if entitlements["aps-environment"] as? String == nil {
            problems.append("\(entitlementsName): no aps-environment (Push Notifications capability): no APNs or VoIP token")
        }
        let links = Set(app.products)
        if links.contains(Self.callsProduct) {
            if !backgroundModes.contains("voip") {
                problems.append("\(infoName): UIBackgroundModes lacks voip: PushKit delivers no calls")
            }
            if !activityTypes.contains("INStartCallIntent") {
                problems.append("\(infoName): NSUserActivityTypes lacks INStartCallIntent: Recents cannot call back")
            }
            problems += recentsProblems(sources: sources)
        }
        let handlesSilentPushes =
            allSource.range(of: #"didReceiveRemoteNotification\s+\w+\s*:[^)]*fetchCompletionHandler"#, options: .regularExpression)
            != nil
        if links.contains(Self.chatProduct) || handlesSilentPushes, !backgroundModes.contains("remote-notification") {
            problems.append("\(infoName): UIBackgroundModes lacks remote-notification: silent pushes (receipts, badge) never wake the app")
        }
        if links.contains(Self.chatProduct) {
            if entitlements["com.apple.developer.usernotifications.communication"] as? Bool != true {
                problems.append(
                    "\(entitlementsName): com.apple.developer.usernotifications.communication is not true on the app target: "
                        + "no communication notifications (avatars)")
            }
            if !activityTypes.contains("INSendMessageIntent") {
                problems.append("\(infoName): NSUserActivityTypes lacks INSendMessageIntent: no communication notifications")
            }
        }
        for name in app.targetDependencies {
            guard let ext = targets.first(where: { $0.name == name }), ext.type == "app-extension" else { continue }
            problems += try appGroupProblems(app: app, appEntitlements: entitlements, appSource: allSource, extension: ext)
        }
        return problems
    }

    /// The app delegate (the class adopting `UIApplicationDelegate`) must implement
    /// `application(_:continue:restorationHandler:)`, in its class or an extension of it; a
    /// SwiftUI app must also forward the activity with `onContinueUserActivity`.
    private func recentsProblems(sources: [(name: String, text: String)]) -> [String] {
        var problems: [String] = []
        let delegateNames = sources.compactMap { source -> String? in
            guard let match = source.text.range(of: #"class\s+\w+\s*:[^{]*UIApplicationDelegate"#, options: .regularExpression)
            else { return nil }
            let words = source.text[match].split { !$0.isLetter && !$0.isNumber && $0 != "_" }
            return words.count > 1 ? String(words[1]) : nil
        }
        let method =
            #"func\s+application\s*\(\s*_\s+\w+\s*:\s*UIApplication\s*,\s*continue\s+\w+\s*:\s*NSUserActivity\s*,\s*restorationHandler"#
        let implemented = sources.contains { source in
            delegateNames.contains { name in
                source.text.range(of: #"(class|extension)\s+\#(name)\b"#, options: .regularExpression) != nil
            } && source.text.range(of: method, options: .regularExpression) != nil
        }
        if delegateNames.isEmpty {
            problems.append("Sources: no class adopts UIApplicationDelegate")
        } else if !implemented {
            problems.append(
                "Sources: \(delegateNames.joined(separator: ", ")) lacks application(_:continue:restorationHandler:): Recents cannot call back"
            )
        }
        let swiftUIApp = sources.contains { $0.text.range(of: #"@main\s+struct\s+\w+\s*:\s*App\b"#, options: .regularExpression) != nil }
        if swiftUIApp, !sources.contains(where: { $0.text.contains(".onContinueUserActivity(") }) {
            problems.append("Sources: the SwiftUI app has no onContinueUserActivity: its scenes, not the app delegate, get Recents' taps")
        }
        return problems
    }

    private func extensionProblems(_ ext: Target) throws -> [String] {
        var problems: [String] = []
        if ext.products.contains(Self.callsProduct) {
            problems.append("project.yml: the extension \(ext.name) links the Calls product (extensions never ring; ~24 MB limit)")
        }
        var ignored: [String] = []
        let info = try plist(ext.infoPlist, of: ext, kind: "INFOPLIST_FILE", problems: &problems)
        _ = try plist(ext.entitlements, of: ext, kind: "CODE_SIGN_ENTITLEMENTS", problems: &ignored)
        let point = (info["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String
        if point != "com.apple.usernotifications.service" {
            problems.append("\(ext.infoPlist ?? "Info.plist"): \(ext.name) is not a Notification Service Extension")
        }
        return problems
    }

    private func appGroupProblems(
        app: Target, appEntitlements: [String: Any], appSource: String, extension ext: Target
    ) throws
        -> [String]
    {
        var problems: [String] = []
        var ignored: [String] = []
        let extInfo = try plist(ext.infoPlist, of: ext, kind: "INFOPLIST_FILE", problems: &ignored)
        let extEntitlements = try plist(ext.entitlements, of: ext, kind: "CODE_SIGN_ENTITLEMENTS", problems: &ignored)
        let groupsKey = "com.apple.security.application-groups"
        let appGroups = appEntitlements[groupsKey] as? [String] ?? []
        let extGroups = extEntitlements[groupsKey] as? [String] ?? []
        guard let group = extInfo["CometChatExtensionGroupID"] as? String, !group.isEmpty else {
            return ["\(ext.infoPlist ?? "Info.plist"): no CometChatExtensionGroupID: the extension has no App Group"]
        }
        if !appGroups.contains(group) {
            problems.append("\(app.entitlements ?? "entitlements"): App Group \(group) (the extension's) missing; it has \(appGroups)")
        }
        if !extGroups.contains(group) {
            problems.append(
                "\(ext.entitlements ?? "entitlements"): App Group \(group) (CometChatExtensionGroupID) missing; it has \(extGroups)")
        }
        if Set(appGroups) != Set(extGroups) {
            problems.append("App Group: the app has \(appGroups), the extension \(extGroups)")
        }
        let configured = configValue("extensionGroupID", in: appSource)
        if configured != group {
            problems.append("Config.swift: App Group extensionGroupID is \(configured ?? "missing"), the extension's is \(group)")
        }
        if !appSource.contains("extensionGroupID: Config.extensionGroupID") {
            problems.append("Sources: PNConfiguration is not given extensionGroupID: Config.extensionGroupID (App Group unused)")
        }
        return problems
    }

    /// `static let name = "value"` in the app's sources.
    private func configValue(_ name: String, in source: String) -> String? {
        guard let match = source.range(of: #"static\s+let\s+\#(name)\s*=\s*"[^"]*""#, options: .regularExpression) else {
            return nil
        }
        let text = source[match]
        guard let open = text.firstIndex(of: "\"") else { return nil }
        return String(text[text.index(after: open)...].dropLast())
    }

    private func plist(_ path: String?, of target: Target, kind: String, problems: inout [String]) throws -> [String: Any] {
        guard let path else {
            problems.append("project.yml: \(target.name) has no \(kind)")
            return [:]
        }
        let url = appFolder.appendingPathComponent(path)
        guard let data = try? Data(contentsOf: url) else {
            problems.append("\(path): missing")
            return [:]
        }
        guard let dictionary = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            problems.append("\(path): not a dictionary")
            return [:]
        }
        return dictionary
    }

    private func swiftSources(of target: Target) throws -> [(name: String, text: String)] {
        var files: [(name: String, text: String)] = []
        for folder in target.sources {
            let url = appFolder.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in walker where file.pathExtension == "swift" {
                files.append((file.lastPathComponent, try String(contentsOf: file, encoding: .utf8)))
            }
        }
        return files.sorted { $0.name < $1.name }
    }
}
