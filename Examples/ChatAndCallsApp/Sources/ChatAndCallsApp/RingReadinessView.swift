import SwiftUI
import CometChatPushNotificationsSwift

/// What could silence a notification or keep a call from ringing, checked after sign-in.
struct RingReadinessView: View {
    @State private var status = "not checked"

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text("Ring readiness: \(status)")
            Button("Check again") { check() }
        }
        .onAppear { check() }
    }

    private func check() {
        status = "checking…"
        Task {
            do {
                let readiness = try await CometChatPushNotifications.shared.ensureRingReady()
                status = readiness == .ready ? "ready" : "\(readiness.name): \(Self.advice(readiness))"
            } catch {
                // A PNError: its description is its code and message.
                status = "unknown (\(error))"
            }
        }
    }

    private static func advice(_ readiness: PNRingReadiness) -> String {
        switch readiness {
        case .ready: return "nothing to do"
        case .notificationsOff: return "allow notifications in Settings"
        case .providerMissing: return "set Config.providerId"
        case .backgroundModeMissing: return "add the voip background mode to Info.plist"
        case .voipEntitlementMissing: return "no VoIP token: check the Push Notifications capability, on a device"
        case .microphoneDenied: return "allow the microphone in Settings"
        case .privatePushWithoutExtension: return "add the Notification Service Extension: private pushes show placeholders only"
        }
    }
}
