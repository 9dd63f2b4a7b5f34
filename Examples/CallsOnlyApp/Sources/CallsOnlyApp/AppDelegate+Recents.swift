import Foundation
import UIKit

extension AppDelegate {
    /// A call tapped in the Phone app's Recents (an `INStartCallIntent`) calls back. UIKit calls
    /// this in an app without scenes; a SwiftUI app gets the same activity through
    /// `onContinueUserActivity` (see `CallsOnlyApp`), which hands it to the same code.
    func application(
        _ application: UIApplication, continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([any UIUserActivityRestoring]?) -> Void
    ) -> Bool {
        OutgoingCalls.shared.callBack(from: userActivity)
    }
}
