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
            switch await CometChatPushNotifications.shared.ringReadiness() {
            case .success(let readiness):
                status = readiness == .ready ? "ready" : "\(readiness.name): \(Self.advice(readiness))"
            case .failure(let error):
                status = "unknown (\(error.code.name): \(error.message))"
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
        }
    }
}
