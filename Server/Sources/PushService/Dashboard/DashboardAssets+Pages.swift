// The dashboard script's pages (see DashboardAssets.swift): one function a page.

extension DashboardAssets {
    /// The part of `/dashboard/assets/dashboard.js` that draws each page.
    static let scriptPages = #"""
          // ---- pages ---------------------------------------------------------------------------
          var pages = {};

          pages.signin = function () {
            if (adminKey() && !params.get("refused")) { location.replace("/dashboard/apps"); return; }
            var input = el("input", { type: "password", name: "key", autocomplete: "off", required: true, spellcheck: "false" });
            var error = el("p", { id: "signin-error", className: "form-error", role: "alert" });
            if (params.get("refused")) error.textContent = "Your admin key was refused. Sign in again.";
            var form = el("form", { className: "card narrow", onsubmit: function (event) {
              event.preventDefault();
              var key = input.value.trim();
              if (!key) { error.textContent = "Enter the admin key."; input.focus(); return; }
              fetch("/apps", { headers: { apikey: key }, credentials: "omit", cache: "no-store" }).then(function (response) {
                if (response.ok) {
                  sessionStorage.setItem(KEY, key);
                  input.value = "";
                  var next = params.get("next") || "";
                  location.assign(/^\/dashboard\/[a-z]+(\?[^#]*)?$/.test(next) ? next : "/dashboard/apps");
                } else {
                  error.textContent = response.status === 401 ? "That admin key was refused." : "Sign-in failed (HTTP " + response.status + ").";
                  input.setAttribute("aria-invalid", "true");
                  input.focus();
                  input.select();
                }
              }).catch(function () { error.textContent = "The service did not answer."; });
            } },
              el("p", { text: "Sign in with the admin key of this push-server (the PUSH_ADMIN_KEY variable, or the admin.key file in its data directory). It is kept in this browser tab only and sent in the apikey header." }),
              field("admin-key", "Admin key", input),
              error,
              el("button", { type: "submit", text: "Sign in" }));
            input.setAttribute("aria-describedby", "signin-error");
            append(content, form);
            input.focus();
          };

          pages.apps = function () {
            api("GET", "/apps").then(function (apps) {
              var rows = apps.map(function (a) {
                return el("tr", {},
                  el("th", { scope: "row" }, el("a", { href: "/dashboard/providers?app=" + encodeURIComponent(a.appId), text: a.appId })),
                  el("td", { text: a.name }),
                  el("td", {}, a.webhookUrl ? el("code", { text: a.webhookUrl }) : el("span", { className: "muted", text: "none" })),
                  el("td", {}, a.hasWebhookSecret ? badge("sealed", "ok") : badge("none")),
                  el("td", {}, a.defaultApnsProviderId ? el("code", { text: a.defaultApnsProviderId }) : el("span", { className: "muted", text: "none" })),
                  el("td", {}, a.defaultFcmProviderId ? el("code", { text: a.defaultFcmProviderId }) : el("span", { className: "muted", text: "none" })),
                  el("td", {}, privacyControl(a)),
                  el("td", {}, urgencyControl(a)),
                  el("td", {}, badgeControl(a)),
                  el("td", {}, holdControl(a)),
                  el("td", {}, when(a.createdAt)),
                  el("td", { className: "links" },
                    el("a", { href: "/dashboard/tokens?app=" + encodeURIComponent(a.appId), text: "Tokens" }),
                    el("a", { href: "/dashboard/send?app=" + encodeURIComponent(a.appId), text: "Test push" })));
              });
              append(content, table(apps.length + (apps.length === 1 ? " app" : " apps"),
                ["App", "Name", "Webhook", "Webhook secret", "Default APNs provider", "Default FCM provider", "Privacy", "Urgency", "Badge", "Hold while reading", "Created", "Open"], rows));
              if (apps.length) append(content, textsEditor(apps));
            }).catch(failed);
          };

          // Standard: payloads in clear through APNs and FCM; private: a placeholder and the
          // payload encrypted for each device (issue 28). Saved when changed.
          function privacyControl(a) {
            var select = el("select", { id: "privacy-" + a.appId, "aria-label": "Privacy of " + a.appId },
              el("option", { value: "standard", text: "Standard" }),
              el("option", { value: "private", text: "Private" }));
            select.value = a.privacy || "standard";
            var placeholder = el("div", { className: "muted", text: a.privacy === "private" ? "Shows \u201c" + a.privatePlaceholder + "\u201d" : "" });
            select.addEventListener("change", function () {
              var value = select.value;
              say("Saving the privacy of " + a.appId + "…");
              api("PUT", "/apps/" + encodeURIComponent(a.appId), { body: { privacy: value } }).then(function (saved) {
                a.privacy = saved.privacy;
                placeholder.textContent = saved.privacy === "private" ? "Shows \u201c" + saved.privatePlaceholder + "\u201d" : "";
                say(a.appId + " is now " + saved.privacy + (saved.privacy === "private" ? ": pushes carry no content in clear." : "."), "ok");
              }).catch(function (error) { select.value = a.privacy || "standard"; failed(error); });
            });
            return [select, placeholder];
          }

          // Urgency (issue 30): whether the app has the Time Sensitive capability, saved when
          // changed (the rest of its delivery policy as set is kept), and the levels in effect.
          function urgencyControl(a) {
            var box = el("input", { type: "checkbox", id: "time-sensitive-" + a.appId });
            box.checked = !!(a.deliveryPolicy && a.deliveryPolicy.timeSensitive);
            var levels = el("div", { className: "muted" });
            function show(app) {
              var effective = (app.effectiveDeliveryPolicy || {}).levels || {};
              levels.textContent = ["mention", "direct", "group", "reaction", "call"].map(function (kind) {
                return kind + " " + (effective[kind] || "?");
              }).join(", ");
            }
            show(a);
            box.addEventListener("change", function () {
              var policy = { timeSensitive: box.checked, levels: (a.deliveryPolicy || {}).levels || {}, relevance: (a.deliveryPolicy || {}).relevance || {} };
              say("Saving the urgency of " + a.appId + "…");
              api("PUT", "/apps/" + encodeURIComponent(a.appId), { body: { deliveryPolicy: policy } }).then(function (saved) {
                a.deliveryPolicy = saved.deliveryPolicy;
                a.effectiveDeliveryPolicy = saved.effectiveDeliveryPolicy;
                show(saved);
                say(a.appId + (saved.deliveryPolicy.timeSensitive ? " may send time-sensitive pushes." : " sends no time-sensitive pushes."), "ok");
              }).catch(function (error) { box.checked = !box.checked; failed(error); });
            });
            return [el("label", { "for": "time-sensitive-" + a.appId }, box, " Time Sensitive"), levels];
          }

          // The badge default (issue 30): the number each send gives (caller) or the service's own
          // count (auto). Saved when changed.
          function badgeControl(a) {
            var id = "badge-" + a.appId;
            var select = el("select", { id: id, "aria-label": "Badge default of " + a.appId, "aria-describedby": id + "-hint" },
              el("option", { value: "caller", text: "caller" }),
              el("option", { value: "auto", text: "auto" }));
            select.value = a.badge || "caller";
            select.addEventListener("change", function () {
              var value = select.value;
              say("Saving the badge default of " + a.appId + "…");
              api("PUT", "/apps/" + encodeURIComponent(a.appId), { body: { badge: value } }).then(function (saved) {
                a.badge = saved.badge;
                select.value = saved.badge;
                say(a.appId + "'s badge default is now " + saved.badge + (saved.badge === "auto"
                  ? ": the service counts the badge of every recipient a send gives no number."
                  : ": the badge is the number each send gives."), "ok");
              }).catch(function (error) { select.value = a.badge || "caller"; failed(error); });
            });
            return [select, el("div", { className: "hint", id: id + "-hint", text: "auto: the service counts each recipient's unread chat messages." })];
          }

          // Quiet when already reading (issue 31): how long chat pushes to a user's other devices
          // wait while they read the conversation elsewhere (0: off). Saved when changed.
          function holdControl(a) {
            var id = "hold-" + a.appId;
            var input = el("input", { id: id, type: "number", min: "0", max: "300", step: "1", size: 4, "aria-label": "Hold while reading, in seconds, of " + a.appId, "aria-describedby": id + "-hint" });
            input.value = String(a.holdWhileActiveSeconds || 0);
            input.addEventListener("change", function () {
              // An emptied field is no value: the saved one comes back.
              if (input.value.trim() === "") { input.value = String(a.holdWhileActiveSeconds || 0); return; }
              var seconds = Number(input.value);
              say("Saving the hold of " + a.appId + "…");
              api("PUT", "/apps/" + encodeURIComponent(a.appId), { body: { holdWhileActiveSeconds: seconds } }).then(function (saved) {
                a.holdWhileActiveSeconds = saved.holdWhileActiveSeconds;
                input.value = String(saved.holdWhileActiveSeconds);
                say(saved.holdWhileActiveSeconds
                  ? a.appId + "'s chat pushes wait " + saved.holdWhileActiveSeconds + " s on a user's other devices while they read the conversation."
                  : a.appId + " holds no pushes while a user reads.", "ok");
              }).catch(function (error) { input.value = String(a.holdWhileActiveSeconds || 0); failed(error); });
            });
            return [input, el("div", { className: "hint", id: id + "-hint", text: "seconds, 0 to 300; 0: off" })];
          }

          // Notification texts (issue 30, languages): the texts the service writes into pushes, per
          // language, beside the built-in ones, with a preview of what a device in that language
          // shows. The preview checks the draft as a save would and saves nothing.
          var TEMPLATE_ORDER = ["callAudio", "callVideo", "groupMessage", "reaction"];
          var TEMPLATE_LABELS = { callAudio: "Audio call", callVideo: "Video call", groupMessage: "Group message", reaction: "Reaction" };
          var PREVIEW_SAMPLE = { sender: "Ana", text: "See you at 5?", group: "Hiking club", reaction: "\uD83D\uDC4D" };
          var LANGUAGE_TAG = /^[a-z]{2,8}(-[a-z0-9]{1,8})*$/;
          function languageName(tag) {
            try { return new Intl.DisplayNames(["en"], { type: "language" }).of(tag) || ""; } catch (e) { return ""; }
          }

          // The editor's card on the apps page: which app, then its texts (textsForm).
          function textsEditor(apps) {
            var app = currentApp();
            if (!apps.some(function (a) { return a.appId === app; })) app = apps[0].appId;
            var appSelect = el("select", {}, apps.map(function (a) {
              return el("option", { value: a.appId, text: a.appId + (a.name && a.name !== a.appId ? " — " + a.name : "") });
            }));
            appSelect.value = app;
            var holder = el("div", { id: "texts-holder" });
            function load() {
              clear(holder);
              var chosen = appSelect.value;
              api("GET", "/apps/" + encodeURIComponent(chosen) + "/templates").then(function (data) {
                if (appSelect.value === chosen) append(holder, textsForm(chosen, data));
              }).catch(failed);
            }
            appSelect.addEventListener("change", function () { sessionStorage.setItem(APP, appSelect.value); load(); });
            load();
            return el("section", { className: "card", id: "texts", "aria-labelledby": "texts-title" },
              el("h2", { id: "texts-title", text: "Notification texts" }),
              el("p", { className: "hint", text: "The texts the service writes into pushes (a call's body, a group message's line, a reaction's line) in each device's language. An empty field uses the built-in text shown in it; message text and names are never translated." }),
              el("div", { className: "inline-form" }, field("texts-app", "App", appSelect)),
              holder);
          }

          // One app's texts: a language picker (built in, the app's own, and any added here), an
          // input per template, Save / Remove, the loc-key choice, and the live preview.
          function textsForm(app, data) {
            var state = data;
            var path = "/apps/" + encodeURIComponent(app);
            var names = TEMPLATE_ORDER.filter(function (n) { return state.names[n]; })
              .concat(Object.keys(state.names).filter(function (n) { return TEMPLATE_ORDER.indexOf(n) < 0; }).sort());
            var added = [];
            var language = el("select", {});
            var inputs = {}, errors = {}, hints = {}, texts = {}, sources = {}, keys = {};
            var timer = null, sequence = 0;

            function tags() {
              var all = {};
              Object.keys(state.builtIn).concat(Object.keys(state.templates), added).forEach(function (t) { all[t] = true; });
              return Object.keys(all).sort();
            }
            function fillLanguages(selected) {
              clear(language);
              tags().forEach(function (tag) {
                var marks = [];
                if (state.builtIn[tag]) marks.push("built in");
                if (state.templates[tag]) marks.push("app texts");
                var name = languageName(tag);
                append(language, el("option", { value: tag,
                  text: tag + (name && name.toLowerCase() !== tag ? " — " + name : "") + " (" + (marks.length ? marks.join(", ") : "new") + ")" }));
              });
              language.value = selected;
            }

            var rows = names.map(function (name) {
              var id = "texts-" + name;
              var input = el("input", { type: "text", id: id, autocomplete: "off", spellcheck: "false", "aria-describedby": id + "-hint " + id + "-error" });
              input.addEventListener("input", schedule);
              inputs[name] = input;
              hints[name] = el("p", { className: "hint", id: id + "-hint" });
              errors[name] = el("p", { className: "field-error", id: id + "-error", "aria-live": "polite" });
              return el("div", { className: "field" }, el("label", { for: id, text: TEMPLATE_LABELS[name] || name }), input, hints[name], errors[name]);
            });

            var preview = el("div", { id: "texts-preview", className: "preview", dir: "ltr" }, names.map(function (name) {
              texts[name] = el("span", { className: "preview-text", id: "preview-" + name });
              sources[name] = el("span", { className: "badge", id: "preview-" + name + "-source" });
              keys[name] = el("span", { className: "muted preview-keys", id: "preview-" + name + "-keys" });
              return el("div", { className: "preview-row" },
                el("span", { className: "preview-name", text: TEMPLATE_LABELS[name] || name }), texts[name], " ", sources[name], " ", keys[name]);
            }));
            var previewNote = el("p", { id: "texts-preview-note", className: "muted", "aria-live": "polite" });

            // What the inputs say: only the texts that are not blank.
            function draft() {
              var result = {};
              names.forEach(function (name) { if (inputs[name].value.trim()) result[name] = inputs[name].value; });
              return result;
            }
            // Shows each problem of `details` next to its input ("templates.de.reaction",
            // "body.reaction": the last part names the template); true when one was shown.
            function showErrors(details) {
              var shown = false;
              names.forEach(function (name) {
                var problem = null;
                Object.keys(details || {}).forEach(function (field) { if (field.split(".").pop() === name) problem = details[field]; });
                errors[name].textContent = problem ? "Refused: " + problem : "";
                if (problem) { inputs[name].setAttribute("aria-invalid", "true"); shown = true; } else inputs[name].removeAttribute("aria-invalid");
              });
              return shown;
            }
            function schedule() {
              clearTimeout(timer);
              timer = setTimeout(runPreview, 300);
            }
            function runPreview() {
              clearTimeout(timer);
              var tag = language.value;
              var mine = ++sequence;
              var body = { languages: [tag], locKeys: locKeys.checked, sample: PREVIEW_SAMPLE };
              var drafted = draft();
              // A language the app has no texts for and the draft leaves empty is not sent: the
              // device falls back as it would (de-ch to de, then English).
              if (Object.keys(drafted).length || state.templates[tag]) { body.templates = {}; body.templates[tag] = drafted; }
              previewNote.textContent = "Rendering…";
              api("POST", path + "/template-preview", { body: body }).then(function (result) {
                if (mine !== sequence) return;
                showErrors({});
                preview.setAttribute("dir", result.rightToLeft ? "rtl" : "ltr");
                preview.setAttribute("lang", result.language);
                preview.classList.remove("stale");
                names.forEach(function (name) {
                  var entry = result.texts[name] || {};
                  texts[name].textContent = entry.text || "";
                  sources[name].textContent = entry.source || "";
                  sources[name].className = "badge" + (String(entry.source || "").indexOf("app") === 0 ? " ok" : "");
                  keys[name].textContent = entry["loc-key"] ? "loc-key " + entry["loc-key"] + ", loc-args " + JSON.stringify(entry["loc-args"] || []) : "";
                });
                var s = result.sample || {};
                previewNote.textContent = "What a device set to " + tag + " shows (texts of " + result.language + (result.rightToLeft ? ", right to left" : "") +
                  "), with the sample sender " + s.sender + ", group " + s.group + ", text " + s.text + ", reaction " + s.reaction + ".";
              }).catch(function (error) {
                if (mine !== sequence) return;
                preview.classList.add("stale");
                if (showErrors(error.details)) previewNote.textContent = "No preview: the service refuses this draft (see the marked text).";
                else { previewNote.textContent = "No preview."; failed(error); }
              });
            }
            function show(tag) {
              var saved = state.templates[tag] || {};
              // The built-in texts a device of this language falls back to: the language's, or
              // those of a shorter form of it (de-ch: de), else English's.
              var base = tag;
              while (!state.builtIn[base] && base.indexOf("-") > 0) base = base.slice(0, base.lastIndexOf("-"));
              if (!state.builtIn[base]) base = state.fallbackLanguage;
              var builtIn = state.builtIn[base] || {};
              names.forEach(function (name) {
                inputs[name].value = saved[name] || "";
                inputs[name].setAttribute("placeholder", builtIn[name] || "");
                var info = state.names[name] || {};
                hints[name].textContent = "Placeholders: " + (info.placeholders || []).map(function (p) { return "{" + p + "}"; }).join(", ") +
                  (info.locKey ? " · loc-key " + info.locKey : "") + (base === tag ? "" : " · empty: the built-in text of " + base);
              });
              showErrors({});
              remove.disabled = !state.templates[tag];
              runPreview();
            }

            var addInput = el("input", { type: "text", autocomplete: "off", spellcheck: "false", size: 12, placeholder: "it, pt-BR, de-CH", "aria-describedby": "texts-add-error" });
            var addError = el("p", { className: "field-error", id: "texts-add-error", "aria-live": "polite" });
            var addForm = el("form", { className: "add-language", onsubmit: function (event) {
              event.preventDefault();
              var tag = addInput.value.trim().toLowerCase();
              if (!LANGUAGE_TAG.test(tag) || tag.length > 35) {
                addError.textContent = "Not a language tag: a language of 2 to 8 letters, then parts of letters or digits after dashes (such as pt-BR).";
                addInput.setAttribute("aria-invalid", "true");
                return;
              }
              addError.textContent = "";
              addInput.removeAttribute("aria-invalid");
              addInput.value = "";
              if (tags().indexOf(tag) < 0) added.push(tag);
              fillLanguages(tag);
              show(tag);
              say(state.builtIn[tag] || state.templates[tag] ? "Showing " + tag + "." : "Added " + tag + ": nothing is saved until you save its texts.");
            } }, field("texts-add", "Add a language", addInput), el("button", { type: "submit", className: "secondary", text: "Add" }));

            var remove = el("button", { type: "button", className: "secondary", id: "texts-remove", text: "Remove" });
            remove.addEventListener("click", function () {
              var tag = language.value;
              say("Removing the " + tag + " texts of " + app + "…");
              api("DELETE", path + "/templates/" + encodeURIComponent(tag)).then(function (saved) {
                state = saved;
                if (!state.builtIn[tag] && added.indexOf(tag) < 0) added.push(tag);
                fillLanguages(tag);
                show(tag);
                say(app + " has no own texts for " + tag + " now: its pushes use the built-in ones.", "ok");
              }).catch(failed);
            });
            var previewButton = el("button", { type: "button", className: "secondary", id: "texts-preview-button", text: "Preview" });
            previewButton.addEventListener("click", runPreview);

            var form = el("form", { id: "texts-form", onsubmit: function (event) {
              event.preventDefault();
              clearTimeout(timer);
              sequence++;
              var tag = language.value;
              var body = draft();
              var count = Object.keys(body).length;
              say("Saving the " + tag + " texts of " + app + "…");
              api("PUT", path + "/templates/" + encodeURIComponent(tag), { body: body }).then(function (saved) {
                state = saved;
                fillLanguages(tag);
                remove.disabled = !state.templates[tag];
                showErrors({});
                say(count ? "Saved " + count + (count === 1 ? " text" : " texts") + " for " + tag + " in " + app + "."
                  : app + " has no own texts for " + tag + " now: its pushes use the built-in ones.", "ok");
                runPreview();
              }).catch(function (error) {
                showErrors(error.details);
                failed(error);
              });
            } },
              el("div", { className: "grid" }, rows),
              el("div", { className: "actions" },
                el("button", { type: "submit", id: "texts-save", text: "Save" }), previewButton, remove));

            var locKeys = el("input", { type: "checkbox", id: "texts-lockeys" });
            locKeys.checked = !!state.locKeys;
            locKeys.addEventListener("change", function () {
              say("Saving the loc-key choice of " + app + "…");
              api("PUT", path, { body: { locKeys: locKeys.checked } }).then(function (saved) {
                state.locKeys = saved.locKeys;
                locKeys.checked = saved.locKeys;
                say(app + (saved.locKeys ? "'s alerts also carry loc-key and loc-args." : "'s alerts carry no loc-key."), "ok");
                runPreview();
              }).catch(function (error) { locKeys.checked = !!state.locKeys; failed(error); });
            });

            language.addEventListener("change", function () { show(language.value); });
            var languageTags = Object.keys(state.templates).sort();
            var first = languageTags.length ? languageTags[0] : state.fallbackLanguage;
            fillLanguages(first);
            var holder = [
              el("div", { className: "inline-form" }, field("texts-language", "Language", language), addForm),
              addError,
              form,
              el("div", { className: "checks" }, el("label", {}, locKeys, " Also send loc-key/loc-args for apps that localize on the device")),
              el("h3", { text: "Preview" }),
              previewNote,
              preview
            ];
            show(first);
            return holder;
          }

          pages.providers = function () {
            withApp(function (app) {
              var holder = el("div", { id: "provider-health" });
              var engine = el("p", { className: "engine" });
              append(content, [engine, holder]);
              function load() {
                return api("GET", "/admin/providers/health", { app: app }).then(function (data) {
                  engine.textContent = data.engine === "delivery"
                    ? "Delivery engine running: health since the service started."
                    : "The delivery engine is not running (sender: " + data.engine + "), so no health is recorded.";
                  var rows = data.providers.map(function (p) {
                    var identity = p.type === "apns"
                      ? [el("div", {}, "Key ", el("code", { text: p.keyId })), el("div", {}, "Team ", el("code", { text: p.teamId })), el("div", {}, "Topic ", el("code", { text: p.bundleId }))]
                      : [el("div", {}, "Project ", el("code", { text: p.projectId })), el("div", { text: p.clientEmail })];
                    var up = p.connections ? p.connectionsUp + " of " + p.connections + " up" : "none yet";
                    return el("tr", {},
                      el("th", { scope: "row", text: p.providerId }),
                      el("td", {}, badge(p.type.toUpperCase(), "type"), " ", p.environment ? badge(p.environment, p.environment === "production" ? "prod" : "sandbox") : null),
                      el("td", {}, identity),
                      el("td", {}, badge("sealed", "ok")),
                      el("td", {}, when(p.lastSuccessAt), p.delivered ? el("div", { className: "muted", text: p.delivered + " delivered" }) : null),
                      el("td", {}, p.lastErrorAt ? [when(p.lastErrorAt), el("div", { className: "reason", text: p.lastErrorReason })] : el("span", { className: "muted", text: "none" })),
                      el("td", {}, p.type === "apns" ? duration(p.jwtAgeSeconds) : el("span", { className: "muted", text: "n/a" })),
                      el("td", { text: up + (p.inFlight ? ", " + p.inFlight + " in flight" : "") }),
                      el("td", {}, badge(p.circuitBreaker, p.circuitBreaker === "open" ? "bad" : p.circuitBreaker === "closed" ? "ok" : "muted-badge"),
                        p.circuitBreakerReason ? el("div", { className: "reason", text: p.circuitBreakerReason }) : null));
                  });
                  clear(holder);
                  append(holder, table("Providers of " + app, ["Provider", "Kind", "Identity", "Key", "Last success", "Last error", "JWT age", "Connections", "Circuit breaker"], rows));
                }).catch(failed);
              }
              load();
              setInterval(load, 5000);
              append(content, apnsForm(app, load));
            });
          };

          function apnsForm(app, reload) {
            var id = el("input", { name: "providerId", required: true, pattern: "[A-Za-z0-9._\\-]+", autocomplete: "off" });
            var keyId = el("input", { name: "keyId", required: true, autocomplete: "off", spellcheck: "false" });
            var teamId = el("input", { name: "teamId", required: true, autocomplete: "off", spellcheck: "false" });
            var bundleId = el("input", { name: "bundleId", required: true, autocomplete: "off", spellcheck: "false", placeholder: "com.example.chat" });
            var environment = el("select", { name: "environment" },
              el("option", { value: "sandbox", text: "Sandbox" }),
              el("option", { value: "production", text: "Production" }));
            var p8 = el("textarea", { name: "p8Key", rows: 5, required: true, autocomplete: "off", spellcheck: "false", placeholder: "-----BEGIN PRIVATE KEY-----" });
            var file = el("input", { type: "file", accept: ".p8,.pem,text/plain" });
            file.addEventListener("change", function () {
              if (!file.files || !file.files[0]) return;
              file.files[0].text().then(function (text) { p8.value = text; file.value = ""; });
            });
            var mutable = el("input", { type: "checkbox", name: "includeMutableContent", checked: true });
            var available = el("input", { type: "checkbox", name: "includeContentAvailable" });
            var form = el("form", { className: "card", onsubmit: function (event) {
              event.preventDefault();
              var body = {
                providerId: id.value.trim(), keyId: keyId.value.trim(), teamId: teamId.value.trim(), bundleId: bundleId.value.trim(),
                production: environment.value === "production", p8Key: p8.value.trim() + "\n",
                includeMutableContent: mutable.checked, includeContentAvailable: available.checked
              };
              say("Saving provider " + body.providerId + "…");
              api("POST", "/notifications/push/v1/providers/apns", { app: app, body: body }).then(function (saved) {
                p8.value = "";
                form.reset();
                say("Provider " + saved.providerId + " saved; its key is sealed and will not be shown again.", "ok");
                reload();
              }).catch(failed);
            } },
              el("h2", { text: "Add an APNs provider" }),
              el("div", { className: "grid" },
                field("apns-id", "Provider id", id),
                field("apns-key-id", "Key ID", keyId, "10 characters, from the key's page in your Apple developer account."),
                field("apns-team-id", "Team ID", teamId),
                field("apns-bundle", "Bundle id (topic)", bundleId),
                field("apns-environment", "Environment", environment, "Sandbox for builds run from Xcode; production for TestFlight and the App Store.")),
              field("apns-p8", ".p8 key", p8, "Paste the key, or choose the file below. It is sealed (AES-256-GCM) before it is stored and never shown again."),
              field("apns-p8-file", "Read the key from a file", file),
              el("div", { className: "checks" },
                el("label", {}, mutable, " mutable-content on alerts"),
                el("label", {}, available, " content-available on alerts")),
              el("button", { type: "submit", text: "Add provider" }));
            return form;
          }

          pages.tokens = function () {
            withApp(function (app) {
              var uid = params.get("uid") || "";
              var filter = el("input", { name: "uid", value: uid, autocomplete: "off" });
              append(content, el("form", { className: "inline-form", method: "get", action: "/dashboard/tokens" },
                el("input", { type: "hidden", name: "app", value: app }),
                field("uid-filter", "User id", filter), el("button", { type: "submit", className: "secondary", text: "Filter" }),
                uid ? el("a", { href: dashboardURL("tokens"), text: "All users" }) : null));
              var holder = el("div");
              append(content, holder);
              Promise.all([
                api("GET", "/users", { app: app }),
                api("GET", "/notifications/push/v1/tokens" + (uid ? "?uid=" + encodeURIComponent(uid) : ""), { app: app }),
                api("GET", "/notifications/push/v1/providers", { app: app })
              ]).then(function (results) {
                var users = results[0], tokens = results[1].pushTokens, providers = {};
                results[2].forEach(function (p) { providers[p.providerId] = p; });
                var byUser = {};
                tokens.forEach(function (t) { (byUser[t.uid] = byUser[t.uid] || []).push(t); });
                var shown = uid ? users.filter(function (u) { return u.uid === uid; }) : users;
                if (uid && !shown.length) shown = [{ uid: uid, name: "" }];
                var empty = [];
                shown.slice(0, 200).forEach(function (user) {
                  var list = byUser[user.uid] || [];
                  if (!list.length && !uid) { empty.push(user.uid); return; }
                  var rows = list.map(function (t) {
                    var provider = providers[t.providerId];
                    var env = !provider ? "unknown" : provider.type === "fcm" ? "FCM" : provider.production ? "production" : "sandbox";
                    return el("tr", {},
                      el("td", {}, el("code", { text: tokenHint(t.pushToken), title: "token hint (the whole token is not shown)" })),
                      el("td", { text: t.platform }),
                      el("td", {}, badge(env, env === "production" ? "prod" : env === "sandbox" ? "sandbox" : "")),
                      el("td", { text: t.providerId }),
                      el("td", {}, when(t.updatedAt)),
                      el("td", {}, when(t.createdAt)),
                      el("td", {}, el("code", { text: t.authToken || "—" })));
                  });
                  append(holder, el("section", { className: "user", "aria-labelledby": "user-" + user.uid },
                    el("div", { className: "user-head" },
                      el("h2", { id: "user-" + user.uid }, user.uid, user.name && user.name !== user.uid ? el("span", { className: "muted", text: " — " + user.name }) : null),
                      el("a", { className: "button-link", href: dashboardURL("send", { uid: user.uid }), text: "Send a test push" })),
                    table(list.length + (list.length === 1 ? " token" : " tokens") + " of " + user.uid,
                      ["Token", "Platform", "Environment", "Provider", "Last registration", "First registered", "Auth token"], rows)));
                });
                if (empty.length) append(holder, el("p", { className: "muted", text: "Users without tokens: " + empty.join(", ") }));
                if (!shown.length) append(holder, el("p", { text: "This app has no users yet." }));
              }).catch(failed);
            });
          };

          pages.send = function () {
            withApp(function (app) {
              var uid = el("input", { name: "uid", required: true, autocomplete: "off", value: params.get("uid") || "", list: "known-users" });
              var text = el("input", { name: "text", required: true, maxlength: 200, value: "Test push from the push-server dashboard" });
              var users = el("datalist", { id: "known-users" });
              var result = el("div", { id: "send-result", role: "status", "aria-live": "polite" });
              api("GET", "/users", { app: app }).then(function (list) {
                list.slice(0, 500).forEach(function (u) { append(users, el("option", { value: u.uid })); });
              }).catch(failed);
              var form = el("form", { className: "card", onsubmit: function (event) {
                event.preventDefault();
                var target = uid.value.trim();
                var body = {
                  type: "chat", recipients: [{ uid: target }],
                  message: {
                    id: "dashboard-" + randomHex(8), category: "message", receiverType: "user", text: text.value,
                    sender: { uid: "push-dashboard", name: "push-server dashboard" }, receiver: { uid: target, name: target }
                  }
                };
                clear(result);
                api("POST", "/notifications/push/v1/send", { app: app, body: body, headers: { "Idempotency-Key": "dashboard-" + randomHex(16) } })
                  .then(function (sent) {
                    if (!sent.jobs) {
                      append(result, el("p", { className: "warn", text: target + " has no registered token: nothing was sent." }));
                      return;
                    }
                    append(result, [
                      el("p", { className: "ok" }, "Accepted: request ", el("code", { text: sent.requestId }), ", " + sent.jobs + (sent.jobs === 1 ? " job" : " jobs") + " for " + target + "."),
                      el("a", { id: "open-log", className: "button-link", href: dashboardURL("log", { request: sent.requestId }), text: "Open its delivery log" })]);
                    document.getElementById("open-log").focus();
                  }).catch(failed);
              } },
                el("p", { text: "Sends a chat message push to every token of the user, through the same send API and delivery engine as real messages." }),
                field("send-uid", "User id", uid), users,
                field("send-text", "Message", text),
                el("button", { type: "submit", text: "Send test push" }));
              append(content, [form, result]);
            }, ["uid"]);
          };

          pages.log = function () {
            withApp(function (app) {
              var requestId = params.get("request") || "";
              var input = el("input", { name: "request", value: requestId, required: true, autocomplete: "off", spellcheck: "false", size: 40 });
              append(content, el("form", { className: "inline-form", method: "get", action: "/dashboard/log" },
                el("input", { type: "hidden", name: "app", value: app }),
                field("request-id", "Request id", input, "The requestId the send API answered."),
                el("button", { type: "submit", className: "secondary", text: "Show log" })));
              if (!requestId) return;
              var summary = el("p", { id: "log-summary", className: "summary", role: "status", "aria-live": "polite" });
              var holder = el("div", { id: "delivery-log" });
              append(content, [summary, holder]);
              var polls = 0;
              function load() {
                api("GET", "/notifications/push/v1/send/" + encodeURIComponent(requestId) + "/log", { app: app }).then(function (jobs) {
                  var counts = {};
                  jobs.forEach(function (j) { counts[j.state] = (counts[j.state] || 0) + 1; });
                  var open = (counts.pending || 0) + (counts.leased || 0);
                  summary.textContent = jobs.length
                    ? jobs.length + (jobs.length === 1 ? " job: " : " jobs: ") + Object.keys(counts).sort().map(function (k) { return counts[k] + " " + k; }).join(", ") + (open ? " (updating…)" : ".")
                    : "No job has this request id in this app.";
                  var rows = jobs.map(function (j) {
                    var kind = j.state === "delivered" ? "ok" : j.state === "failed" ? "bad" : "wait";
                    var answer = j.lastError ? j.lastError : j.state === "delivered" ? "accepted by the provider" : "—";
                    return el("tr", { "data-state": j.state },
                      el("td", {}, el("code", { text: j.id.slice(0, 8), title: j.id })),
                      el("td", { text: j.uid }),
                      el("td", {}, el("code", { text: tokenHint(j.token) })),
                      el("td", { text: j.platform }),
                      el("td", { text: j.kind }),
                      el("td", {}, badge(j.state, kind)),
                      el("td", { text: j.attempts }),
                      el("td", { className: j.lastError ? "reason" : "", text: answer }),
                      el("td", {}, when(j.createdAt)),
                      el("td", {}, j.finishedAt ? when(j.finishedAt) : el("span", { className: "muted", text: "—" })));
                  });
                  clear(holder);
                  append(holder, table("Delivery log of request " + requestId, ["Job", "User", "Token", "Platform", "Kind", "State", "Attempts", "Last answer", "Created", "Finished"], rows));
                  if (open && ++polls < 300) setTimeout(load, 1000);
                }).catch(failed);
              }
              load();
            }, ["request"]);
          };

          // User pushes (issue 31 part 3, "what happened to Alice's push?"): a user's recent
          // pushes, newest first and a page at a time, each push's trace as a timeline, and the
          // app's pushes per minute over the last hour as two small charts the page draws itself.
          var PUSHES_PAGE = 10;
          var STATS_MINUTES = 60;
          var STEP_LABELS = { accepted: "Accepted", preferences: "Preferences", sent: "Sent", delivered: "Delivered", opened: "Opened", replied: "Replied" };
          // What the hold while a user reads elsewhere did to a push (issue 31 part 2), in words.
          var RULE_NOTES = {
            "held-while-active": "Held: the user was reading this conversation elsewhere, so it waited the app's hold before it was sent.",
            "read-elsewhere": "Cancelled: the user read the conversation elsewhere while it was held."
          };
          var OUTCOMES = [
            { key: "delivered", label: "delivered" }, { key: "failed", label: "failed" }, { key: "expired", label: "expired" },
            { key: "skipped", label: "skipped" }, { key: "inFlight", label: "in flight" }
          ];
          var SVG_NS = "http://www.w3.org/2000/svg";
          // An SVG element, as el() makes HTML ones (text only, never markup).
          function svg(tag, attributes) {
            var node = document.createElementNS(SVG_NS, tag);
            var attrs = attributes || {};
            Object.keys(attrs).forEach(function (name) {
              var value = attrs[name];
              if (value === null || value === undefined || value === false) return;
              if (name === "text") node.textContent = String(value);
              else node.setAttribute(name === "className" ? "class" : name, String(value));
            });
            for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
            return node;
          }
          function pad(number, width) {
            var text = String(number);
            while (text.length < (width || 2)) text = "0" + text;
            return text;
          }
          // Local wall-clock time of a time in milliseconds: 14:03:07 (.250 with milliseconds).
          function clock(ms, withMilliseconds) {
            var d = new Date(ms);
            return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + (withMilliseconds ? "." + pad(d.getMilliseconds(), 3) : "");
          }
          function minuteOf(ms) { var d = new Date(ms); return pad(d.getHours()) + ":" + pad(d.getMinutes()); }
          // A time in milliseconds as <time>: date and time, how long ago in its tooltip.
          function stamp(ms) {
            var d = new Date(ms);
            return el("time", { datetime: d.toISOString(), title: ago((Date.now() - ms) / 1000),
              text: d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + clock(ms) });
          }
          // How long after the push was accepted: +0 ms, +850 ms, +1.25 s, +3 min 4 s.
          function offset(ms) {
            var sign = ms < 0 ? "\u2212" : "+";
            var abs = Math.abs(ms);
            if (abs < 1000) return sign + abs + " ms";
            if (abs < 60000) return sign + (abs / 1000).toFixed(abs < 10000 ? 2 : 1) + " s";
            var seconds = Math.round(abs / 1000);
            if (seconds < 3600) return sign + Math.floor(seconds / 60) + " min " + (seconds % 60) + " s";
            return sign + Math.floor(seconds / 3600) + " h " + Math.floor((seconds % 3600) / 60) + " min";
          }
          function stateKind(state) {
            return state === "delivered" ? "ok" : state === "failed" || state === "expired" ? "bad" : state === "skipped" ? "muted-badge" : "wait";
          }

          pages.pushes = function () {
            withApp(function (app) {
              var current = "", pushes = [], next = null, selected = null, sequence = 0, statsSequence = 0;
              // The app picker keeps the user: switching apps shows the same uid's pushes there.
              var picker = content.querySelector("form.app-picker");
              var keptUid = el("input", { type: "hidden", name: "uid", value: params.get("uid") || "" });
              if (picker) picker.appendChild(keptUid);

              var uid = el("input", { name: "uid", required: true, autocomplete: "off", spellcheck: "false", value: params.get("uid") || "", list: "known-users" });
              var users = el("datalist", { id: "known-users" });
              api("GET", "/users", { app: app }).then(function (list) {
                list.slice(0, 500).forEach(function (u) { append(users, el("option", { value: u.uid })); });
              }).catch(failed);
              var refresh = el("button", { type: "button", id: "pushes-refresh", className: "secondary", text: "Refresh" });
              var form = el("form", { className: "inline-form", id: "pushes-form", onsubmit: function (event) {
                event.preventDefault();
                var target = uid.value.trim();
                if (!target) { uid.focus(); return; }
                find(target, false);
              } },
                field("pushes-uid", "User id", uid, "The user's uid: their pushes of the retention period, newest first."), users,
                el("button", { type: "submit", id: "pushes-find", text: "Find" }), refresh);

              var summary = el("p", { id: "pushes-summary", className: "summary", role: "status", "aria-live": "polite" });
              var error = el("p", { id: "pushes-error", className: "form-error", role: "alert" });
              var list = el("div", { id: "pushes-list" });
              var more = el("button", { type: "button", id: "pushes-more", className: "secondary", text: "More", hidden: true });
              var trace = el("section", { id: "push-trace", className: "card trace", tabindex: "-1", "aria-labelledby": "trace-title" });
              var charts = el("div", { id: "push-charts", className: "charts" });
              var statsNote = el("p", { id: "stats-note", className: "muted" });
              append(content, form,
                el("div", { className: "history" },
                  el("section", { className: "pushes", "aria-label": "Pushes of the user" }, summary, error, list, more),
                  trace),
                el("section", { className: "card", id: "activity", "aria-labelledby": "activity-title" },
                  el("h2", { id: "activity-title", text: "The app's pushes of the last hour" }), charts, statsNote));

              function pushesPath(before) {
                return "/users/" + encodeURIComponent(current) + "/pushes?limit=" + PUSHES_PAGE + (before ? "&before=" + encodeURIComponent(before) : "");
              }
              // The first page of a user's pushes (Find, Refresh); keeps the trace shown when asked
              // and the push is still on that page.
              function find(target, keepTrace) {
                var mine = ++sequence;
                current = target;
                params.set("uid", target);
                keptUid.value = target;
                history.replaceState(null, "", dashboardURL("pushes", { uid: target }));
                clear(error);
                uid.removeAttribute("aria-invalid");
                summary.textContent = "Finding the pushes of " + target + "…";
                api("GET", pushesPath(null), { app: app }).then(function (data) {
                  if (mine !== sequence) return;
                  pushes = data.pushes;
                  next = data.next;
                  draw(-1);
                  var kept = keepTrace && selected ? pushes.filter(function (p) { return p.pushId === selected; })[0] : null;
                  showTrace(kept || null, false);
                }).catch(function (refused) {
                  if (mine !== sequence) return;
                  pushes = [];
                  next = null;
                  clear(list);
                  more.hidden = true;
                  summary.textContent = "";
                  showTrace(null, false);
                  // The API's own words next to the list, e.g. "No user has this uid." for an
                  // unknown uid, and its code.
                  clear(error);
                  append(error, refused.message || String(refused), refused.code ? el("span", { className: "error-code", text: " (" + refused.code + ")" }) : null);
                  if (refused.status === 404) uid.setAttribute("aria-invalid", "true");
                });
              }
              more.addEventListener("click", function () {
                if (!next) return;
                var mine = sequence;
                more.disabled = true;
                api("GET", pushesPath(next), { app: app }).then(function (data) {
                  if (mine !== sequence) return;
                  var first = pushes.length;
                  pushes = pushes.concat(data.pushes);
                  next = data.next;
                  more.disabled = false;
                  // The focus goes to the first push it added (the last one when there was none).
                  draw(data.pushes.length ? first : first - 1);
                }).catch(function (refused) { more.disabled = false; failed(refused); });
              });
              refresh.addEventListener("click", function () {
                say("");
                if (current) find(current, true);
                loadStats();
              });

              // The list; `focusFrom` is the first row a More added (its button gets the focus).
              function draw(focusFrom) {
                var focusTo = null;
                var rows = pushes.map(function (p, index) {
                  var device = p.device || {};
                  var show = el("button", { type: "button", className: "secondary small", "aria-controls": "push-trace",
                    "aria-pressed": p.pushId === selected ? "true" : "false", "aria-label": "Trace of the push of " + clock(p.createdAt), text: "Trace" });
                  show.addEventListener("click", function () { showTrace(p, true); });
                  if (index === focusFrom) focusTo = show;
                  return el("tr", { "data-push-id": p.pushId, "data-created": p.createdAt, "data-request": p.requestId, className: p.pushId === selected ? "selected" : "" },
                    el("td", {}, stamp(p.createdAt)),
                    el("td", { text: p.kind }),
                    el("td", {}, badge(p.state, stateKind(p.state))),
                    el("td", {}, p.rule ? el("code", { text: p.rule }) : el("span", { className: "muted", text: "none" })),
                    el("td", {}, el("code", { text: device.token || "—", title: "token hint" }), el("div", { className: "muted", text: device.platform || "" })),
                    el("td", {}, show));
                });
                clear(list);
                append(list, table("Pushes of " + current + ", newest first", ["Time", "Kind", "State", "Rule", "Device", "Trace"], rows));
                more.hidden = !next;
                if (focusTo) focusTo.focus();
                summary.textContent = pushes.length
                  ? pushes.length + (pushes.length === 1 ? " push" : " pushes") + " of " + current + (next ? " shown, newest first; More shows older ones." : ", newest first.")
                  : current + " has no push in this app (pushes are kept for the retention period).";
              }

              // A push's trace: each step with its time and its offset from `accepted`, what the
              // step says, and where and why the push stopped.
              function showTrace(p, focus) {
                selected = p ? p.pushId : null;
                Array.prototype.forEach.call(list.querySelectorAll("tr[data-push-id]"), function (row) {
                  var on = row.getAttribute("data-push-id") === selected;
                  row.className = on ? "selected" : "";
                  var button = row.querySelector("button");
                  if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
                });
                clear(trace);
                if (!p) {
                  append(trace, el("h2", { id: "trace-title", text: "Trace" }),
                    el("p", { className: "muted", text: current && pushes.length ? "Pick a push to see what happened to it." : "Find a user, then pick one of their pushes." }));
                  return;
                }
                var device = p.device || {};
                var steps = device.steps || [];
                var stop = device.stoppedAt || null;
                var accepted = steps.filter(function (s) { return s.step === "accepted"; })[0];
                var start = accepted ? accepted.at : p.createdAt;
                var items = steps.map(function (s) {
                  var stopped = !!stop && stop.step === s.step;
                  return el("li", { className: "step" + (stopped ? " stopped" : ""), "data-step": s.step, "data-at": s.at },
                    el("span", { className: "step-name", text: STEP_LABELS[s.step] || s.step }),
                    el("span", { className: "step-time" },
                      el("time", { datetime: new Date(s.at).toISOString(), text: clock(s.at, true) }), " ",
                      el("span", { className: "offset", text: offset(s.at - start) })),
                    stepDetail(s, p, device),
                    stopped ? el("p", { className: "stop-reason", text: "Stopped here: " + stop.reason }) : null,
                    stopped && RULE_NOTES[stop.reason] ? el("p", { className: "rule-note", text: RULE_NOTES[stop.reason] }) : null);
                });
                // Stopped before a step it never reached (expired before it was sent).
                if (stop && !steps.some(function (s) { return s.step === stop.step; })) {
                  items.push(el("li", { className: "step stopped", "data-step": stop.step },
                    el("span", { className: "step-name", text: (STEP_LABELS[stop.step] || stop.step) + ": not reached" }),
                    el("p", { className: "stop-reason", text: "Stopped here: " + stop.reason })));
                }
                append(trace,
                  el("h2", { id: "trace-title" }, "Trace of the push of ", stamp(p.createdAt)),
                  el("dl", { className: "meta" },
                    el("dt", { text: "Push" }), el("dd", {}, el("code", { text: p.pushId })),
                    el("dt", { text: "Request" }), el("dd", {}, el("a", { href: dashboardURL("log", { request: p.requestId }), text: p.requestId })),
                    el("dt", { text: "Kind" }), el("dd", { text: p.kind }),
                    el("dt", { text: "State" }), el("dd", {}, badge(p.state, stateKind(p.state))),
                    el("dt", { text: "Device" }), el("dd", {}, el("code", { text: device.token || "—" }), " " + (device.platform || ""))),
                  el("ol", { className: "timeline", id: "trace-steps" }, items),
                  stop ? null : el("p", { className: "muted", text: nextStep(p, steps) }));
                if (focus) trace.focus();
              }
              function stepDetail(s, p, device) {
                var detail = s.detail;
                switch (s.step) {
                  case "accepted":
                    return el("p", { className: "step-detail" }, "Send request ", el("code", { text: p.requestId }));
                  case "preferences":
                    return el("p", { className: "step-detail" },
                      "Rule: ", detail && detail !== "none" ? el("code", { className: "rule", text: detail }) : el("span", { className: "muted", text: "none" }),
                      device.interruptionLevel ? [" · interruption level ", el("code", { className: "level", text: device.interruptionLevel }),
                        " (" + (device.levelReason || "none") + ")"] : null,
                      detail === "held-while-active" ? el("span", { className: "rule-note", text: " " + RULE_NOTES[detail] }) : null);
                  case "sent":
                    var answer = detail || {};
                    var provider = String(device.platform || "").indexOf("fcm") === 0 ? "FCM" : "APNs";
                    return el("p", { className: "step-detail" }, provider + " answered ",
                      answer.status ? badge(String(answer.status), answer.status === 200 ? "ok" : "bad") : null,
                      answer.reason ? el("span", { className: "reason", text: " " + answer.reason }) : null,
                      answer["apns-id"] ? [" · apns-id ", el("code", { text: answer["apns-id"] })] : null);
                  case "delivered":
                    return el("p", { className: "step-detail", text: "Reported by the " + (detail === "extension" ? "notification service extension" : detail || "device") + "." });
                  case "replied":
                    return el("p", { className: "step-detail" }, "Reply ", el("code", { text: String(detail || "") }));
                  default:
                    if (detail === undefined || detail === null) return null;
                    return el("p", { className: "step-detail", text: typeof detail === "string" ? detail : JSON.stringify(detail) });
                }
              }
              // What a push that has not stopped waits for next.
              function nextStep(p, steps) {
                var done = {};
                steps.forEach(function (s) { done[s.step] = true; });
                if (!done.sent) return "Not sent yet (" + p.state + ").";
                if (!done.delivered) return "The device has not reported it delivered (yet).";
                if (!done.opened) return "Not opened (yet).";
                return "";
              }

              // The two charts: pushes accepted per minute (bars), and per minute what became of
              // them (stacked bars), with the totals as text.
              function loadStats() {
                var mine = ++statsSequence;
                return api("GET", "/notifications/push/v1/stats?minutes=" + STATS_MINUTES, { app: app }).then(function (data) {
                  if (mine !== statsSequence) return;
                  clear(charts);
                  append(charts, rateChart(data), outcomeChart(data));
                  statsNote.textContent = "Every minute since " + minuteOf(data.since) + ", read at " + clock(Date.now()) + ". Refresh reads it again.";
                }).catch(failed);
              }
              var W = 600, H = 170, LEFT = 34, BOTTOM = 22, TOP = 10;
              function frame(id, title, description, max, minutes) {
                var plotH = H - TOP - BOTTOM;
                var chart = svg("svg", { id: id, className: "chart", viewBox: "0 0 " + W + " " + H, role: "img",
                    "aria-labelledby": id + "-title", "aria-describedby": id + "-desc", "data-minutes": minutes.length },
                  svg("title", { id: id + "-title", text: title }),
                  svg("desc", { id: id + "-desc", text: description }),
                  svg("line", { className: "grid-line", x1: LEFT, x2: W, y1: TOP, y2: TOP }),
                  svg("line", { className: "base-line", x1: LEFT, x2: W, y1: TOP + plotH, y2: TOP + plotH }),
                  svg("text", { className: "axis", x: LEFT - 6, y: TOP + 4, "text-anchor": "end", text: max }),
                  svg("text", { className: "axis", x: LEFT - 6, y: TOP + plotH + 4, "text-anchor": "end", text: "0" }));
                if (minutes.length) {
                  append(chart,
                    svg("text", { className: "axis", x: LEFT, y: H - 6, text: minuteOf(minutes[0].at) }),
                    svg("text", { className: "axis", x: W, y: H - 6, "text-anchor": "end", text: minuteOf(minutes[minutes.length - 1].at) }));
                }
                return chart;
              }
              function rateChart(data) {
                var minutes = data.minutes || [];
                var max = Math.max.apply(null, [1].concat(minutes.map(function (m) { return m.accepted; })));
                var busiest = minutes.filter(function (m) { return m.accepted === max; })[0];
                var total = data.totals.accepted;
                var title = "Send rate: pushes accepted per minute, last " + minutes.length + " minutes";
                var description = total + " accepted in all" + (busiest ? "; at most " + max + " in a minute (" + minuteOf(busiest.at) + ")." : ".");
                var chart = frame("rate-chart", title, description, max, minutes);
                var step = (W - LEFT) / Math.max(1, minutes.length), plotH = H - TOP - BOTTOM;
                minutes.forEach(function (m, index) {
                  var height = m.accepted / max * plotH;
                  append(chart, svg("rect", { className: "bar", "data-at": m.at, "data-value": m.accepted,
                      x: (LEFT + index * step + step * 0.1).toFixed(2), y: (TOP + plotH - height).toFixed(2), width: (step * 0.8).toFixed(2), height: height.toFixed(2) },
                    svg("title", { text: minuteOf(m.at) + ": " + m.accepted + " accepted" })));
                });
                return el("figure", { className: "chart-figure" },
                  el("figcaption", { text: "Send rate (accepted per minute)" }),
                  chart,
                  el("p", { className: "chart-total" }, el("strong", { id: "total-accepted", text: total }), " accepted in the last " + minutes.length + " minutes"));
              }
              function outcomeChart(data) {
                var minutes = data.minutes || [];
                function sum(m) { return OUTCOMES.reduce(function (n, o) { return n + (m[o.key] || 0); }, 0); }
                var max = Math.max.apply(null, [1].concat(minutes.map(sum)));
                var totals = data.totals;
                var description = OUTCOMES.map(function (o) { return totals[o.key] + " " + o.label; }).join(", ") + ".";
                var chart = frame("outcome-chart", "What became of them: outcomes per minute, last " + minutes.length + " minutes", description, max, minutes);
                var step = (W - LEFT) / Math.max(1, minutes.length), plotH = H - TOP - BOTTOM;
                minutes.forEach(function (m, index) {
                  var group = svg("g", { className: "minute", "data-at": m.at },
                    svg("title", { text: minuteOf(m.at) + ": " + (sum(m) ? OUTCOMES.filter(function (o) { return m[o.key]; }).map(function (o) { return m[o.key] + " " + o.label; }).join(", ") : "none") }));
                  var y = TOP + plotH;
                  OUTCOMES.forEach(function (o) {
                    if (!m[o.key]) return;
                    var height = m[o.key] / max * plotH;
                    y -= height;
                    append(group, svg("rect", { className: "seg seg-" + o.key, "data-outcome": o.key, "data-value": m[o.key],
                      x: (LEFT + index * step + step * 0.1).toFixed(2), y: y.toFixed(2), width: (step * 0.8).toFixed(2), height: height.toFixed(2) }));
                  });
                  append(chart, group);
                });
                return el("figure", { className: "chart-figure" },
                  el("figcaption", { text: "Outcomes per minute" }),
                  chart,
                  el("ul", { className: "legend", id: "outcome-totals", "aria-label": "Totals of the last " + minutes.length + " minutes" }, OUTCOMES.map(function (o) {
                    return el("li", { "data-outcome": o.key }, el("span", { className: "swatch seg-" + o.key, "aria-hidden": "true" }), o.label + " ",
                      el("strong", { id: "total-" + o.key, text: totals[o.key] }));
                  })));
              }

              showTrace(null, false);
              if (uid.value.trim()) find(uid.value.trim(), false);
              else uid.focus();
              loadStats();
            });
          };

          pages.queues = function () {
            var cards = el("div", { className: "cards" });
            var note = el("p", { className: "muted" });
            append(content, [cards, note]);
            var previous = null;
            function metric(label, value, id) {
              return el("div", { className: "stat" }, el("div", { className: "stat-value", id: id, text: value }), el("div", { className: "stat-label", text: label }));
            }
            function parseMetrics(text) {
              var sums = {}, values = {};
              text.split("\n").forEach(function (line) {
                if (!line || line.charAt(0) === "#") return;
                var match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
                if (!match) return;
                var value = Number(match[3]);
                sums[match[1]] = (sums[match[1]] || 0) + value;
                values[match[1] + (match[2] || "")] = value;
              });
              return { sums: sums, values: values, at: Date.now() / 1000 };
            }
            function rate(now, name) {
              if (!previous || now.at <= previous.at) return "…";
              return ((now.sums[name] || 0) - (previous.sums[name] || 0)) / (now.at - previous.at);
            }
            function fixed(value, digits) { return typeof value === "number" ? value.toFixed(digits) : value; }
            function ms(seconds) { return seconds === undefined ? "—" : (seconds * 1000).toFixed(1) + " ms"; }
            function load() {
              api("GET", "/admin/outbox").then(function (outbox) {
                var jobs = outbox.pushJobs;
                var running = outbox.deliveryEngine === "delivery";
                var metrics = running
                  ? fetch("/metrics", { credentials: "omit", cache: "no-store" }).then(function (r) { return r.ok ? r.text() : ""; })
                  : Promise.resolve("");
                return metrics.then(function (text) {
                  var now = text ? parseMetrics(text) : null;
                  clear(cards);
                  append(cards,
                    el("section", { className: "card", "aria-labelledby": "outbox-title" },
                      el("h2", { id: "outbox-title", text: "Push outbox" }),
                      el("div", { className: "stats" }, metric("pending", jobs.pending, "q-pending"), metric("in flight", jobs.inFlight, "q-inflight"),
                        metric("delivered", jobs.delivered, "q-delivered"), metric("failed", jobs.failed, "q-failed"))),
                    el("section", { className: "card", "aria-labelledby": "webhook-title" },
                      el("h2", { id: "webhook-title", text: "Webhook queue" }),
                      el("div", { className: "stats" }, metric("waiting to be delivered", outbox.webhookJobsPending, "q-webhooks"))),
                    el("section", { className: "card", "aria-labelledby": "rates-title" },
                      el("h2", { id: "rates-title", text: "Live rates" }),
                      now ? el("div", { className: "stats" },
                        metric("sent / s", fixed(rate(now, "push_sent_total"), 1), "r-sent"),
                        metric("failed / s", fixed(rate(now, "push_failed_total"), 1), "r-failed"),
                        metric("retried / s", fixed(rate(now, "push_retried_total"), 1), "r-retried"),
                        metric("latency p50", ms(now.values['push_delivery_latency_recent_seconds{quantile="0.5"}']), "r-p50"),
                        metric("latency p99", ms(now.values['push_delivery_latency_recent_seconds{quantile="0.99"}']), "r-p99"),
                        metric("tokens removed", now.sums.push_tokens_removed_total || 0, "r-removed"))
                        : el("p", { className: "muted", text: "The delivery engine is not running (sender: " + outbox.deliveryEngine + "): no rates." })));
                  note.textContent = "From /admin/outbox and /metrics, every 3 s. Last update " + new Date().toLocaleTimeString() + ".";
                  if (now) previous = now;
                });
              }).catch(failed);
            }
            load();
            setInterval(load, 3000);
          };
        """#
}
