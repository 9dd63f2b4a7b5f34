#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPServer

/// The operator's web dashboard at `/dashboard`: static HTML, CSS and JavaScript compiled into
/// the binary (no build step, no files to deploy). The pages hold no data: their script asks
/// the admin API with the admin key the operator typed, kept in the tab's `sessionStorage`
/// and sent only in the `apikey` header. No cookie is involved, so a forged cross-site request
/// carries no credential (nothing to protect with a CSRF token), and a strict
/// Content-Security-Policy allows only the dashboard's own script.
public enum Dashboard {
    /// One page: its path segment under `/dashboard/` (empty for the sign-in page), title and
    /// the line under the title.
    public struct Page: Sendable {
        /// `apps` for `/dashboard/apps`; empty for `/dashboard` (sign-in).
        public let slug: String
        /// The title (and the navigation label).
        public let title: String
        let lede: String
    }

    /// Every page, in navigation order after the sign-in page.
    public static let pages: [Page] = [
        Page(slug: "", title: "Sign in", lede: ""),
        Page(
            slug: "apps", title: "Apps",
            lede: "The apps this service pushes for: their privacy, urgency, badge default and notification texts."),
        Page(
            slug: "providers", title: "Providers",
            lede: "APNs and FCM credentials of the app and their health. Keys are sealed and never shown."),
        Page(
            slug: "tokens", title: "Tokens",
            lede: "Push tokens per user, as hints: the whole token is never shown."),
        Page(slug: "send", title: "Test push", lede: "Send a test push to every token of one user."),
        Page(
            slug: "log", title: "Delivery log",
            lede: "What happened to each job of a send request: state, attempts and the provider's last answer."),
        Page(
            slug: "pushes", title: "User pushes",
            lede: "What happened to a user's pushes, each traced from the send to the device, and the app's pushes of the last hour."),
        Page(slug: "queues", title: "Queues", lede: "Outbox and webhook queue depth, and the live delivery rates."),
    ]

    /// Every path the dashboard serves: the pages and their two assets.
    public static var paths: [String] {
        pages.map { $0.slug.isEmpty ? "/dashboard" : "/dashboard/" + $0.slug } + [scriptPath, stylePath]
    }

    static let scriptPath = "/dashboard/assets/dashboard.js"
    static let stylePath = "/dashboard/assets/dashboard.css"

    /// The answer for a request under `/dashboard`, or nil for any other path.
    static func response(method: String, path: String) -> HTTPResponse? {
        guard path == "/dashboard" || path.hasPrefix("/dashboard/") else { return nil }
        guard method == "GET" else {
            return APIError.methodNotAllowed.response
        }
        switch path {
        case scriptPath:
            return asset(DashboardAssets.script, type: "text/javascript; charset=utf-8")
        case stylePath:
            return asset(DashboardAssets.style, type: "text/css; charset=utf-8")
        default:
            var slug = String(path.dropFirst("/dashboard".count))
            while slug.hasPrefix("/") { slug.removeFirst() }
            while slug.hasSuffix("/") { slug.removeLast() }
            guard let page = pages.first(where: { $0.slug == slug }) else {
                return html(404, notFound)
            }
            return html(200, render(page))
        }
    }

    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]

    static func asset(_ text: String, type: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", type)] + securityHeaders, body: Data(text.utf8))
    }

    static func html(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")] + securityHeaders, body: Data(text.utf8))
    }

    /// The page's HTML: the same frame for every page; the script fills `#content`.
    static func render(_ page: Page) -> String {
        let signIn = page.slug.isEmpty
        var navigation = ""
        if !signIn {
            let links = pages.dropFirst().map { other in
                let current = other.slug == page.slug ? " aria-current=\"page\"" : ""
                return "<li><a data-slug=\"\(other.slug)\" href=\"/dashboard/\(other.slug)\"\(current)>\(escape(other.title))</a></li>"
            }
            navigation = """
                <nav aria-label="Dashboard"><ul>\(links.joined())</ul></nav>
                <span class="spacer"></span>
                <button type="button" id="sign-out" class="quiet">Sign out</button>
                """
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(page.title)) · push-server</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="\(stylePath)">
            <script src="\(scriptPath)" defer></script>
            </head>
            <body data-page="\(signIn ? "signin" : page.slug)">
            <a class="skip" href="#main">Skip to the page</a>
            <header class="top">
            <a class="brand" href="/dashboard/apps">push-server <span>dashboard</span></a>
            \(navigation)
            </header>
            <main id="main" tabindex="-1">
            <h1>\(escape(page.title))</h1>
            \(page.lede.isEmpty ? "" : "<p class=\"lede\">\(escape(page.lede))</p>")
            <p id="status" class="status" role="status" aria-live="polite"></p>
            <noscript><p>The dashboard needs JavaScript.</p></noscript>
            <div id="content"></div>
            </main>
            </body>
            </html>

            """
    }

    static let notFound = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Not found · push-server</title>
        <link rel="icon" href="data:,"><link rel="stylesheet" href="\(stylePath)"></head>
        <body><main id="main"><h1>No such page</h1><p><a href="/dashboard">Back to the dashboard</a></p></main></body></html>

        """

    /// Escapes text for HTML element content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
