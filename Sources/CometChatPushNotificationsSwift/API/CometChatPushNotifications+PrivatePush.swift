import Foundation

extension CometChatPushNotifications {
    /// Opens a private push with this installation's key, in the keychain access group of
    /// `appGroupID` (the App Group shared with the Notification Service Extension), and records
    /// the outcome for the diagnostics. `process` names who opened it (`app`, `extension`). A
    /// failure is logged without key material or payload text.
    @_spi(PNProducts)
    public func openPrivatePush(_ payload: [AnyHashable: Any], appGroupID: String?, process: String) -> PNPrivatePushResult {
        guard PrivatePushOpener.isPrivate(payload) else { return .standard }
        let opener = PrivatePushOpener(
            secure: platform.secureStore(appGroupID), crypto: platform.pushCrypto, clock: platform.clock)
        let result = opener.open(payload)
        let now = platform.clock.now()
        let store = privatePushStatusStore(appGroupID: appGroupID)
        switch result {
        case .standard:
            break
        case .opened:
            // Recorded once per process (enough for the diagnostics), not on every push.
            guard
                !privatePushOpenRecorded.withLock({ recorded in
                    defer { recorded = true }
                    return recorded
                })
            else { break }
            PrivatePushStatus.update(store) {
                if process == "extension" { $0.lastOpenedInExtensionAt = now } else { $0.lastOpenedInAppAt = now }
            }
        case .failed(let failure):
            platform.logger.log(.warning, "A private push could not be opened in the \(process): \(failure); its placeholder stays.")
            PrivatePushStatus.update(store) {
                $0.lastFailureCode = failure.code
                $0.lastFailure = failure.description
                $0.lastFailureAt = now
                $0.lastFailureIn = process
            }
        }
        return result
    }

    /// Opens a private push in the app, with the key of the configuration's App Group (the
    /// Calls product's PushKit callback). ``PNPrivatePushResult/standard`` for a push without `enc`.
    @_spi(PNProducts)
    public func openPrivatePushInApp(_ payload: [AnyHashable: Any]) -> PNPrivatePushResult {
        openPrivatePush(payload, appGroupID: configuration?.extensionGroupID, process: "app")
    }

    /// The payload the app's handlers work with: a private push opened (the standard payload
    /// inside), else the payload as it is.
    func openedPayload(_ payload: [AnyHashable: Any]) -> [AnyHashable: Any] {
        guard PrivatePushOpener.isPrivate(payload) else { return payload }
        return openPrivatePushInApp(payload).payload(or: payload)
    }

    /// A notification reached the app (foreground presentation, a tap): one that still carries
    /// `enc` with an alert was not replaced by a Notification Service Extension, so the user saw
    /// its placeholder.
    func notePresentedPayload(_ payload: [AnyHashable: Any]) {
        guard PrivatePushOpener.isPrivate(payload), let aps = payload["aps"] as? [AnyHashable: Any], aps["alert"] != nil else { return }
        let now = platform.clock.now()
        PrivatePushStatus.update(privatePushStatusStore(appGroupID: configuration?.extensionGroupID)) {
            $0.alertsWithoutExtension += 1
            $0.lastAlertWithoutExtensionAt = now
        }
    }

    /// Where the private push status is kept: the App Group's defaults, else the app's.
    func privatePushStatusStore(appGroupID: String?) -> PNKeyValueStore {
        appGroupID.map { platform.sharedStore($0) } ?? platform.store
    }

    /// The private push part of `getDiagnostics()`: whether a key is there (never the key), when
    /// it was made and rotated, and what the app and the extension last noticed.
    func privatePushDiagnostics(_ config: PNConfiguration?) -> [String: Any] {
        let group = config?.extensionGroupID
        var out: [String: Any] = [:]
        out["enabled"] = config?.clientHost != nil
        let ring = PrivatePushKeyStore(secure: platform.secureStore(group), crypto: platform.pushCrypto, clock: platform.clock).load()
        out["keyPresent"] = ring != nil
        out["keychainAccessGroup"] = group ?? "none (the app's own: the Notification Service Extension cannot read the key)"
        let formatter = ISO8601DateFormatter()
        if let ring {
            out["publicKeyFingerprint"] = ring.current.fingerprint
            out["keyCreatedAt"] = formatter.string(from: ring.current.createdAt)
            if let previous = ring.previous, let retired = previous.retiredAt {
                out["previousKeyUsableUntil"] = formatter.string(
                    from: retired.addingTimeInterval(PrivatePushKeyStore.previousKeyLifetime))
            }
        }
        let status = PrivatePushStatus.read(privatePushStatusStore(appGroupID: group))
        if let code = status.lastFailureCode, let text = status.lastFailure, let at = status.lastFailureAt {
            out["lastDecryptionFailure"] = [
                "code": code, "reason": text, "at": formatter.string(from: at), "in": status.lastFailureIn ?? "app",
            ]
        }
        if let at = status.lastOpenedInExtensionAt { out["lastOpenedInExtension"] = formatter.string(from: at) }
        if let at = status.lastOpenedInAppAt { out["lastOpenedInApp"] = formatter.string(from: at) }
        out["placeholdersWithoutExtension"] = status.alertsWithoutExtension
        if status.placeholdersOnly {
            out["warning"] =
                "Private pushes arrive, but no Notification Service Extension opens them: users see placeholders only. "
                + "Add a CometChatNotificationServiceExtension with the App Group of extensionGroupID."
        }
        return out
    }
}
