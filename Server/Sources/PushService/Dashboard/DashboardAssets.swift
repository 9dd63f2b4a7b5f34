// The dashboard's script and style sheet, served from the binary (see Dashboard.swift).
// Edit them here: there is no build step. The script is cut in three at its section comments:
// the helpers and the page chrome here, the pages in DashboardAssets+Pages.swift, the start
// here; the style sheet is in DashboardAssets+Style.swift.

enum DashboardAssets {
    /// `/dashboard/assets/dashboard.js`: its three parts, one blank line between each.
    static let script = scriptHead + "\n\n" + scriptPages + "\n\n" + scriptStart

    /// The script's start, its helpers and the page chrome (navigation, sign-out).
    static let scriptHead = #"""
        // push-server dashboard: plain JavaScript, no build step. The admin key lives in this tab's
        // sessionStorage and goes out only in the apikey header of same-origin requests; every value
        // from the server is put into the page as text (never as HTML).
        (function () {
          "use strict";
          var KEY = "pushServer.adminKey";
          var APP = "pushServer.app";
          var page = document.body.getAttribute("data-page");
          var params = new URLSearchParams(location.search);
          var content = document.getElementById("content");
          var statusLine = document.getElementById("status");

          // ---- helpers -------------------------------------------------------------------------
          function el(tag, attributes) {
            var node = document.createElement(tag);
            var attrs = attributes || {};
            Object.keys(attrs).forEach(function (name) {
              var value = attrs[name];
              if (value === null || value === undefined || value === false) return;
              if (name === "text") node.textContent = String(value);
              else if (name === "className") node.className = value;
              else if (name === "onclick" || name === "onsubmit" || name === "onchange") node.addEventListener(name.slice(2), value);
              else node.setAttribute(name, value === true ? "" : String(value));
            });
            for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
            return node;
          }
          // Appends children: nodes, text, arrays of them; null and false are skipped.
          function append(node) {
            for (var i = 1; i < arguments.length; i++) {
              var child = arguments[i];
              if (child === null || child === undefined || child === false) continue;
              if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); continue; }
              node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
            }
          }
          function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
          function say(text, kind) {
            statusLine.textContent = text || "";
            statusLine.className = "status" + (kind ? " " + kind : "");
          }
          function adminKey() { return sessionStorage.getItem(KEY); }
          function currentApp() { return params.get("app") || sessionStorage.getItem(APP) || ""; }
          function dashboardURL(slug, extra) {
            var query = new URLSearchParams();
            var app = currentApp();
            if (app) query.set("app", app);
            Object.keys(extra || {}).forEach(function (k) { if (extra[k]) query.set(k, extra[k]); });
            var text = query.toString();
            return "/dashboard/" + slug + (text ? "?" + text : "");
          }
          function randomHex(bytes) {
            var values = new Uint8Array(bytes);
            crypto.getRandomValues(values);
            return Array.prototype.map.call(values, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
          }
          // A push token as a short hint: never the whole token.
          function tokenHint(token) {
            var text = String(token || "");
            if (text.length <= 16) return text.slice(0, 4) + "…";
            return text.slice(0, 8) + "…" + text.slice(-4);
          }
          function ago(seconds) {
            if (seconds < 5) return "just now";
            if (seconds < 60) return Math.round(seconds) + " s ago";
            if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
            if (seconds < 86400) return Math.round(seconds / 3600) + " h ago";
            return Math.round(seconds / 86400) + " d ago";
          }
          function when(epochSeconds) {
            if (epochSeconds === null || epochSeconds === undefined) return el("span", { className: "muted", text: "never" });
            var date = new Date(epochSeconds * 1000);
            return el("time", { datetime: date.toISOString(), title: date.toLocaleString(), text: ago(Date.now() / 1000 - epochSeconds) });
          }
          function duration(seconds) {
            if (seconds === null || seconds === undefined) return el("span", { className: "muted", text: "—" });
            if (seconds < 60) return seconds + " s";
            return Math.floor(seconds / 60) + " min " + (seconds % 60) + " s";
          }
          function badge(text, kind) { return el("span", { className: "badge " + (kind || ""), text: text }); }
          function table(caption, headers, rows) {
            return el("div", { className: "table-wrap" },
              el("table", {},
                el("caption", { text: caption }),
                el("thead", {}, el("tr", {}, headers.map(function (h) { return el("th", { scope: "col", text: h }); }))),
                el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: headers.length, className: "muted", text: "Nothing yet." })))));
          }
          function field(id, label, input, hint) {
            input.id = id;
            if (hint) input.setAttribute("aria-describedby", id + "-hint");
            return el("div", { className: "field" }, el("label", { for: id, text: label }), input,
              hint ? el("p", { className: "hint", id: id + "-hint", text: hint }) : null);
          }

          // A refused call: the HTTP status, the error's code and message, and its details (field
          // name → problem, e.g. {"templates.de.reaction": "unknown placeholder {emoji}; …"}).
          function ApiError(status, code, message, details) {
            this.status = status; this.code = code; this.message = message; this.details = details || {};
          }

          // Every call: same origin, the key in a header, no cookies.
          function api(method, path, options) {
            var opts = options || {};
            var headers = { apikey: adminKey() || "" };
            if (opts.app) headers.appid = opts.app;
            if (opts.body !== undefined) headers["Content-Type"] = "application/json";
            Object.keys(opts.headers || {}).forEach(function (k) { headers[k] = opts.headers[k]; });
            return fetch(path, {
              method: method, headers: headers, credentials: "omit", cache: "no-store",
              body: opts.body === undefined ? undefined : JSON.stringify(opts.body)
            }).then(function (response) {
              return response.text().then(function (text) {
                var json = null;
                try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
                if (!response.ok) {
                  var error = (json && json.error) || {};
                  if (response.status === 401 && (error.code || "").indexOf("APIKEY") >= 0) {
                    sessionStorage.removeItem(KEY);
                    location.replace("/dashboard?refused=1");
                  }
                  throw new ApiError(response.status, error.code || "HTTP_" + response.status, error.message || "The request failed.", error.details);
                }
                return json ? json.data : null;
              });
            });
          }
          function failed(error) {
            var message = error && error.message ? error.message : String(error);
            say(message + (error && error.code ? " (" + error.code + ")" : ""), "error");
          }

          // ---- chrome: navigation keeps the app, sign out ---------------------------------------
          function setUpChrome() {
            Array.prototype.forEach.call(document.querySelectorAll("a[data-slug]"), function (link) {
              link.setAttribute("href", dashboardURL(link.getAttribute("data-slug")));
            });
          }
          function setUpSignOut() {
            var out = document.getElementById("sign-out");
            if (out) out.addEventListener("click", function () {
              sessionStorage.removeItem(KEY);
              sessionStorage.removeItem(APP);
              location.assign("/dashboard");
            });
          }

          // The app picker (a GET form, so it works like a link and keeps keyboard order simple).
          function appPicker(apps, extra) {
            var select = el("select", { name: "app" }, apps.map(function (a) {
              return el("option", { value: a.appId, selected: a.appId === currentApp(), text: a.appId + (a.name && a.name !== a.appId ? " — " + a.name : "") });
            }));
            return el("form", { className: "app-picker", method: "get", action: location.pathname },
              field("app-select", "App", select), (extra || []).map(function (name) {
                return params.get(name) ? el("input", { type: "hidden", name: name, value: params.get(name) }) : null;
              }), el("button", { type: "submit", className: "secondary", text: "Show" }));
          }

          // Loads the apps, settles which one the page is about, then calls render(app, apps).
          function withApp(render, extra) {
            api("GET", "/apps").then(function (apps) {
              if (!apps.length) {
                append(content, el("p", { text: "There is no app yet. Create one with the admin API: POST /apps." }));
                return;
              }
              var app = currentApp();
              if (!apps.some(function (a) { return a.appId === app; })) app = apps[0].appId;
              params.set("app", app);
              sessionStorage.setItem(APP, app);
              setUpChrome();
              var picker = appPicker(apps, extra);
              append(content, picker);
              render(app, apps);
            }).catch(failed);
          }
        """#

    /// The script's end: sends a signed-out visitor to sign in, then draws the page.
    static let scriptStart = #"""
          // ---- start ---------------------------------------------------------------------------
          if (page !== "signin" && !adminKey()) {
            location.replace("/dashboard?next=" + encodeURIComponent(location.pathname + location.search));
            return;
          }
          setUpChrome();
          setUpSignOut();
          (pages[page] || pages.apps)();
        })();
        """#
}
