#!/usr/bin/env python3
"""The dashboard in a real browser: headless Chromium driven by Selenium (chromium-driver).

Starts the mock APNs (Server/Mocks/mock_push.py, with a throwaway test CA) and the built
push-server pointed at it, then, as an operator would, in the browser: is refused with a wrong
admin key, signs in, creates an APNs provider, sees a token that the client API registered
(as a hint only), sends a test push, watches it delivered in the delivery log, sees the
provider's health and the queues, then a user's pushes (newest first, More for older ones),
their traces as timelines (delivered and opened, skipped by a mute, refused by APNs), the charts
of the last hour against GET …/stats, Refresh, and an unknown uid. Fails on any JavaScript error
or warning in the browser log.
Saves a screenshot of every page in --screenshots and prints the paths.

usage: dashboard_test.py --binary PATH --mocks DIR --screenshots DIR
"""
import argparse
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

APP = "dash-app"
PROVIDER = "mock-apns"
BUNDLE = "com.example.chat"
KEY_ID, TEAM_ID = "TESTKEY123", "TESTTEAM12"  # what the mock expects (mock_push.py defaults)


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def ok(self, condition, what):
        if condition:
            self.passed += 1
            print("  ok   " + what, flush=True)
        else:
            self.failed += 1
            print("  FAIL " + what, flush=True)
        return condition


def http(method, url, headers=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def wait_for_line(process, pattern, timeout):
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match
    raise RuntimeError("no line matching %r; got: %s" % (pattern, "".join(seen)[-2000:]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--mocks", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="dashboard-test-")
    shots = os.path.abspath(args.screenshots)
    os.makedirs(shots, exist_ok=True)
    for old in os.listdir(shots):
        if old.endswith(".png"):
            os.remove(os.path.join(shots, old))
    processes = []
    driver = None
    checks = Checks()
    try:
        # The mock APNs and its test CA.
        ca = os.path.join(work, "ca")
        subprocess.run(["sh", os.path.join(args.mocks, "make_test_ca.sh"), ca], check=True)
        script = os.path.join(work, "script.json")
        mock_log = os.path.join(work, "mock.jsonl")
        bad_token = secrets.token_hex(32)
        with open(script, "w") as f:
            json.dump({bad_token: [{"status": 400, "reason": "BadDeviceToken"}]}, f)
        mock = subprocess.Popen(
            [sys.executable, os.path.join(args.mocks, "mock_push.py"), "--port", "0",
             "--cert", os.path.join(ca, "server.pem"), "--key", os.path.join(ca, "server.key"),
             "--apns-key", os.path.join(ca, "apns.pub.pem"), "--fcm-key", os.path.join(ca, "fcm.pub.pem"),
             "--key-id", KEY_ID, "--team-id", TEAM_ID, "--script", script, "--log", mock_log],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(mock)
        mock_port = int(wait_for_line(mock, r"^PORT (\d+)", 20).group(1))

        # The service, trusting the mock's CA, with a known admin key (environment only).
        admin_key = "adm_" + secrets.token_hex(16)
        environment = dict(os.environ, PUSH_ADMIN_KEY=admin_key, PUSH_SECRET_KEY=secrets.token_hex(32))
        server = subprocess.Popen(
            [args.binary, "--port", "0", "--data-dir", os.path.join(work, "data"), "--sqlite-sync", "normal",
             "--apns-url", "https://127.0.0.1:%d" % mock_port, "--fcm-url", "https://127.0.0.1:%d" % mock_port,
             "--ca-file", os.path.join(ca, "ca.pem")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment)
        processes.append(server)
        base = wait_for_line(server, r"listening on (http://127\.0\.0\.1:\d+)", 30).group(1)
        # Keep draining the server's output so it never blocks on a full pipe.
        log_path = os.path.join(work, "server.log")
        drain = subprocess.Popen(["cat"], stdin=server.stdout, stdout=open(log_path, "w"))
        processes.append(drain)
        print("dashboard-test: push-server at %s, mock APNs at 127.0.0.1:%d" % (base, mock_port), flush=True)

        # An app and two users with auth tokens, as the app's backend would create them.
        admin = {"apikey": admin_key}
        status, _ = http("POST", base + "/apps", admin, {"appId": APP, "name": "Dashboard test"})
        assert status == 200, status
        auth = {}
        for uid, name in (("alice", "Alice"), ("bob", "Bob")):
            status, body = http("POST", base + "/users", dict(admin, appid=APP), {"uid": uid, "name": name, "withAuthToken": True})
            assert status == 200, body
            auth[uid] = body["data"]["authToken"]

        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1366,900",
                     "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-features=Translate,OptimizationHints,MediaRouter"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
        # The pages re-render as data arrives: an element found a moment ago can be replaced before
        # its text is read (seen under load), so a wait evaluates its condition again instead of
        # failing. Generous: a wait returns as soon as its condition holds.
        def waiter():
            return WebDriverWait(driver, 60, ignored_exceptions=(StaleElementReferenceException,))

        wait = waiter()
        visited = []
        allowed_401 = [False]
        # Refusals the page expects and shows itself (a draft of texts the service refuses): the
        # browser logs their 400 as a failed resource load.
        allowed_400 = [()]
        # The same for a 404 the page shows (the user pushes of an unknown uid).
        allowed_404 = [()]

        def browser_log(where):
            """Fails on any browser log entry at WARNING or above (JavaScript errors, CSP refusals)."""
            entries = driver.get_log("browser")
            bad = []
            for entry in entries:
                if entry["level"] not in ("SEVERE", "WARNING"):
                    continue
                if allowed_401[0] and entry.get("source") == "network" and " 401 " in entry["message"] + " ":
                    continue  # the refused sign-in's own request
                if (entry.get("source") == "network" and "status of 400" in entry["message"]
                        and any(path in entry["message"] for path in allowed_400[0])):
                    continue  # a refused draft of texts, shown next to its input
                if (entry.get("source") == "network" and "status of 404" in entry["message"]
                        and any(path in entry["message"] for path in allowed_404[0])):
                    continue  # an unknown uid's pushes, the API's message shown on the page
                bad.append(entry)
            checks.ok(not bad, "%s: no JavaScript error or warning in the browser log%s" % (
                where, "" if not bad else ": " + json.dumps(bad)[:800]))

        def shot(name):
            """A screenshot of the whole page (the window grows to the page's height for it)."""
            path = os.path.join(shots, name + ".png")
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(1366, max(900, min(height + 140, 4000)))
            driver.save_screenshot(path)
            driver.set_window_size(1366, 900)
            visited.append(driver.current_url)
            return path

        def text(selector):
            return driver.find_element(By.CSS_SELECTOR, selector).text

        # 1. A wrong admin key is refused, and nothing is kept.
        driver.get(base + "/dashboard")
        key_input = wait.until(EC.element_to_be_clickable((By.ID, "admin-key")))
        checks.ok(driver.switch_to.active_element == key_input, "sign-in: the key field has the focus")
        allowed_401[0] = True
        key_input.send_keys("adm_wrong-key" + Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "signin-error"), "refused"))
        checks.ok(driver.execute_script("return sessionStorage.length") == 0, "wrong key: refused, nothing stored")
        checks.ok(driver.current_url.rstrip("/").endswith("/dashboard"), "wrong key: still on the sign-in page")
        shot("01-signin-refused")
        browser_log("sign-in refused")
        allowed_401[0] = False
        status, _ = http("GET", base + "/apps", {"apikey": "adm_wrong-key"})
        checks.ok(status == 401, "wrong key: the admin API answers 401")

        # 2. The right key (typed, Enter): the apps page.
        key_input = driver.find_element(By.ID, "admin-key")
        key_input.clear()
        key_input.send_keys(admin_key + Keys.ENTER)
        wait.until(EC.url_contains("/dashboard/apps"))
        wait.until(EC.presence_of_element_located((By.LINK_TEXT, APP)))
        checks.ok("Dashboard test" in text("main"), "apps: the app is listed")
        # Keyboard: skip link first, then the brand, the navigation in order, sign out.
        driver.get(driver.current_url)
        wait.until(EC.presence_of_element_located((By.LINK_TEXT, APP)))
        order = []
        for _ in range(11):
            webdriver.ActionChains(driver).send_keys(Keys.TAB).perform()
            order.append(driver.execute_script(
                "var e = document.activeElement; return e === document.body ? 'body' : (e.id || e.textContent || '').trim();"))
        expected = ["Skip to the page", "push-server dashboard", "Apps", "Providers", "Tokens", "Test push",
                    "Delivery log", "User pushes", "Queues", "sign-out"]
        checks.ok(order[:len(expected)] == expected, "keyboard: tab order skip link, brand, navigation, sign out (%s)" % order)
        outline = driver.execute_script("return getComputedStyle(document.activeElement).outlineStyle")
        checks.ok(outline not in ("none", ""), "keyboard: the focused element has a visible outline (%s)" % outline)
        shot("02-apps")
        browser_log("apps")
        # The app's privacy (issue 28): switched to private and back from the apps page.
        for value in ("private", "standard"):
            Select(driver.find_element(By.ID, "privacy-" + APP)).select_by_value(value)
            wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "is now " + value))
            status, body = http("GET", base + "/apps/" + APP, admin)
            checks.ok(status == 200 and body["data"]["privacy"] == value, "apps: privacy saved as %s (%s)" % (value, body))

        # The app's badge default (issue 30): auto from its select.
        Select(driver.find_element(By.ID, "badge-" + APP)).select_by_value("auto")
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "badge default is now auto"), "badge: no saved auto")
        status, body = http("GET", base + "/apps/" + APP, admin)
        checks.ok(status == 200 and body["data"]["badge"] == "auto", "apps: badge default saved as auto (%s)" % body["data"].get("badge"))

        # Its hold while a user reads (issue 31): 15 s, then a value the service refuses (put back).
        hold = driver.find_element(By.ID, "hold-" + APP)
        hold.send_keys(Keys.CONTROL, "a")
        hold.send_keys("15", Keys.TAB)
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "wait 15 s"), "hold: no saved 15 s")
        status, body = http("GET", base + "/apps/" + APP, admin)
        checks.ok(status == 200 and body["data"]["holdWhileActiveSeconds"] == 15, "apps: hold saved as 15 s (%s)" % body["data"].get("holdWhileActiveSeconds"))
        allowed_400[0] = ("/apps/%s" % APP,)
        hold = driver.find_element(By.ID, "hold-" + APP)
        hold.send_keys(Keys.CONTROL, "a")
        hold.send_keys("301", Keys.TAB)
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "holdWhileActiveSeconds"), "hold: 301 not refused")
        wait.until(lambda d: d.find_element(By.ID, "hold-" + APP).get_attribute("value") == "15", "hold: the refused 301 was not put back")
        status, body = http("GET", base + "/apps/" + APP, admin)
        checks.ok(body["data"]["holdWhileActiveSeconds"] == 15, "apps: a refused hold leaves 15 s (%s)" % body["data"].get("holdWhileActiveSeconds"))
        browser_log("apps hold")
        allowed_400[0] = ()

        # Its notification texts per language (issue 30): a German reaction line, previewed live.
        templates_url = base + "/apps/" + APP + "/templates"

        def saved_templates():
            status, body = http("GET", templates_url, admin)
            assert status == 200, body
            return body["data"]["templates"]

        def value(selector):
            return driver.find_element(By.CSS_SELECTOR, selector).get_attribute("value")

        allowed_400[0] = ("/apps/%s/template-preview" % APP, "/apps/%s/templates/" % APP)
        language = wait.until(EC.presence_of_element_located((By.ID, "texts-language")))
        Select(language).select_by_value("de")
        reaction = driver.find_element(By.ID, "texts-reaction")
        checks.ok(reaction.get_attribute("placeholder") == "{sender} hat mit {reaction} reagiert: {text}",
                  "texts: German's built-in reaction text is the input's placeholder")
        checks.ok("{sender}, {reaction}, {text}" in text("#texts-reaction-hint"), "texts: the reaction's placeholders are listed")
        german = "{sender} findet {text} {reaction}"
        reaction.send_keys(german)
        rendered = "Ana findet See you at 5? \U0001F44D"
        waiter().until(lambda d: d.find_element(By.ID, "preview-reaction").text == rendered
                       and d.find_element(By.ID, "preview-reaction-source").text == "app", "texts: no preview of the draft")
        checks.ok(text("#preview-callVideo") == "Videoanruf" and text("#preview-callVideo-source") == "built-in",
                  "texts: the preview renders the draft (source app, sample values) beside German's built-in texts")
        checks.ok(german not in saved_templates().get("de", {}).values(), "texts: typing saves nothing")
        # An unknown placeholder: the service's problem next to the reaction input; Save saves nothing.
        reaction.send_keys(Keys.CONTROL, "a")
        reaction.send_keys("{sender} {emoji}")
        waiter().until(lambda d: "{emoji}" in d.find_element(By.ID, "texts-reaction-error").text,
                       "texts: no refusal next to the reaction input")
        checks.ok("unknown placeholder {emoji}" in text("#texts-reaction-error") and reaction.get_attribute("aria-invalid") == "true",
                  "texts: an unknown placeholder is refused next to the reaction input (%s)" % text("#texts-reaction-error"))
        checks.ok(text("#texts-callAudio-error") == "", "texts: the other inputs show no error")
        driver.find_element(By.ID, "texts-save").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "refused"), "texts: Save of a refused draft not refused")
        checks.ok("de" not in saved_templates() and "{emoji}" in text("#texts-reaction-error"),
                  "texts: a refused draft is not saved, its problem stays next to the input")
        shot("02b-texts-refused")
        # A valid text, saved.
        reaction.send_keys(Keys.CONTROL, "a")
        reaction.send_keys(german)
        driver.find_element(By.ID, "texts-save").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Saved 1 text for de"), "texts: not saved")
        checks.ok(saved_templates().get("de") == {"reaction": german}, "texts: Save stores the German reaction (%s)" % saved_templates())
        waiter().until(lambda d: d.find_element(By.ID, "texts-reaction-error").text == ""
                       and d.find_element(By.ID, "preview-reaction").text == rendered, "texts: no preview after saving")
        checks.ok(reaction.get_attribute("aria-invalid") is None, "texts: after a valid save no input is marked")
        # loc-key/loc-args on and off.
        for on in (True, False):
            driver.find_element(By.ID, "texts-lockeys").click()
            said = "also carry loc-key and loc-args" if on else "carry no loc-key"
            wait.until(EC.text_to_be_present_in_element((By.ID, "status"), said), "locKeys: not saved as %s" % on)
            status, body = http("GET", base + "/apps/" + APP, admin)
            if on:
                waiter().until(lambda d: "PN_REACTION" in d.find_element(By.ID, "preview-reaction-keys").text, "locKeys: no loc-key in the preview")
            else:
                waiter().until(lambda d: d.find_element(By.ID, "preview-reaction-keys").text == "", "locKeys: loc-key still in the preview")
            checks.ok(body["data"]["locKeys"] is on, "texts: locKeys saved as %s, the preview shows loc-key accordingly" % on)
        # Arabic, added by its tag: the preview is right to left.
        add = driver.find_element(By.ID, "texts-add")
        add.send_keys("ar-EG" + Keys.ENTER)
        waiter().until(lambda d: d.find_element(By.ID, "texts-preview").get_attribute("dir") == "rtl", "texts: the Arabic preview is not rtl")
        checks.ok(value("#texts-language") == "ar-eg" and text("#preview-callAudio") == "مكالمة صوتية",
                  "texts: an added language (ar-EG) is picked; its preview is right to left, in Arabic")
        checks.ok(driver.find_element(By.ID, "texts-preview").get_attribute("lang") == "ar", "texts: the preview is marked as Arabic")
        shot("02c-texts-arabic")
        # German again, and its texts removed.
        Select(driver.find_element(By.ID, "texts-language")).select_by_value("de")
        waiter().until(lambda d: d.find_element(By.ID, "preview-reaction").text == rendered
                       and d.find_element(By.ID, "texts-preview").get_attribute("dir") == "ltr", "texts: German's saved text not previewed")
        checks.ok(value("#texts-reaction") == german, "texts: German shows its saved reaction")
        driver.find_element(By.ID, "texts-remove").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "no own texts for de"), "texts: German not removed")
        checks.ok("de" not in saved_templates() and value("#texts-reaction") == "",
                  "texts: Remove deletes the German texts and empties the inputs")
        waiter().until(lambda d: d.find_element(By.ID, "preview-reaction-source").text == "built-in", "texts: no built-in preview after Remove")
        checks.ok(driver.find_element(By.ID, "texts-remove").get_attribute("disabled") is not None,
                  "texts: Remove is off for a language without texts")
        browser_log("apps (badge and texts)")
        allowed_400[0] = ()

        # 3. Providers: create the APNs provider with the mock's key, from the keyboard.
        driver.find_element(By.LINK_TEXT, APP).click()
        wait.until(EC.url_contains("/dashboard/providers"))
        wait.until(EC.presence_of_element_located((By.ID, "apns-id")))
        with open(os.path.join(ca, "apns.p8")) as f:
            p8 = f.read()
        driver.find_element(By.ID, "apns-id").send_keys(PROVIDER)
        driver.find_element(By.ID, "apns-key-id").send_keys(KEY_ID)
        driver.find_element(By.ID, "apns-team-id").send_keys(TEAM_ID)
        driver.find_element(By.ID, "apns-bundle").send_keys(BUNDLE)
        Select(driver.find_element(By.ID, "apns-environment")).select_by_value("sandbox")
        driver.find_element(By.ID, "apns-p8").send_keys(p8)
        submit = driver.find_element(By.CSS_SELECTOR, "form.card button[type=submit]")
        submit.send_keys(Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "saved"))
        wait.until(EC.text_to_be_present_in_element((By.ID, "provider-health"), PROVIDER))
        checks.ok(driver.find_element(By.ID, "apns-p8").get_attribute("value") == "", "providers: the key field is emptied after saving")
        key_body = p8.splitlines()[1]
        checks.ok(key_body not in driver.page_source, "providers: the key is not on the page")
        status, body = http("GET", base + "/notifications/push/v1/providers", dict(admin, appid=APP))
        checks.ok(status == 200 and [p["providerId"] for p in body["data"]] == [PROVIDER], "providers: the service has the provider")
        browser_log("providers")

        # 4. The app registers tokens through the client API (as the SDK does).
        good_token = secrets.token_hex(32)
        for uid, token in (("alice", good_token), ("bob", bad_token)):
            status, body = http("POST", base + "/notifications/push/v1/tokens", {"appid": APP, "authToken": auth[uid]},
                                {"pushToken": token, "platform": "apns_ios_device", "providerId": PROVIDER, "timezone": "Europe/Paris"})
            assert status == 200, body

        # 5. Tokens: per user, as hints.
        driver.find_element(By.CSS_SELECTOR, "nav a[data-slug=tokens]").click()
        wait.until(EC.presence_of_element_located((By.ID, "user-alice")))
        main_text = text("main")
        checks.ok(good_token[:8] + "…" + good_token[-4:] in main_text, "tokens: alice's token is shown as a hint")
        checks.ok(good_token not in driver.page_source and bad_token not in driver.page_source, "tokens: no whole token on the page")
        checks.ok("apns_ios_device" in main_text and "sandbox" in main_text, "tokens: platform and environment shown")
        shot("04-tokens")
        browser_log("tokens")

        # 6. A test push to alice, then its delivery log.
        driver.find_element(By.CSS_SELECTOR, "#user-alice ~ a, section[aria-labelledby=user-alice] a.button-link").click()
        wait.until(EC.url_contains("/dashboard/send"))
        uid_field = wait.until(EC.presence_of_element_located((By.ID, "send-uid")))
        checks.ok(uid_field.get_attribute("value") == "alice", "send: the user is filled in from the tokens page")
        driver.find_element(By.CSS_SELECTOR, "form.card button[type=submit]").send_keys(Keys.ENTER)
        open_log = wait.until(EC.element_to_be_clickable((By.ID, "open-log")))
        checks.ok(driver.switch_to.active_element == open_log, "send: the focus moves to the delivery log link")
        shot("05-send")
        browser_log("send")
        open_log.send_keys(Keys.ENTER)
        wait.until(EC.url_contains("/dashboard/log"))
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#delivery-log tr[data-state=delivered]")))
        checks.ok("accepted by the provider" in text("#delivery-log"), "log: the job is delivered, with the provider's answer")
        with open(mock_log) as f:
            seen = [json.loads(line) for line in f if line.strip()]
        pushes = [e for e in seen if e.get("kind") == "apns" and e.get("token") == good_token]
        checks.ok(len(pushes) == 1 and pushes[0]["status"] == 200 and pushes[0]["topic"] == BUNDLE,
                  "log: the mock APNs received the push once, for topic %s" % BUNDLE)
        checks.ok(good_token not in driver.page_source, "log: the token is shown as a hint only")
        shot("06-log-delivered")
        browser_log("delivery log")

        # A push to bob, whose token the mock refuses: the log explains why.
        driver.find_element(By.CSS_SELECTOR, "nav a[data-slug=send]").click()
        uid_field = wait.until(EC.presence_of_element_located((By.ID, "send-uid")))
        uid_field.send_keys("bob")
        driver.find_element(By.CSS_SELECTOR, "form.card button[type=submit]").click()
        wait.until(EC.element_to_be_clickable((By.ID, "open-log"))).click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#delivery-log tr[data-state=failed]")))
        checks.ok("BadDeviceToken" in text("#delivery-log"), "log: a refused push shows APNs' reason")
        shot("07-log-failed")
        browser_log("delivery log (failed)")

        # 7. Provider health after the sends.
        driver.find_element(By.CSS_SELECTOR, "nav a[data-slug=providers]").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "provider-health"), "delivered"))
        health = text("#provider-health")
        checks.ok("1 delivered" in health and "BadDeviceToken" in health, "providers: last success and last error reason")
        checks.ok(re.search(r"\d+ s", health) is not None and "up" in health and "closed" in health,
                  "providers: JWT age, connections and circuit breaker (closed: one push delivered)")
        checks.ok("sealed" in health and key_body not in driver.page_source, "providers: the key is shown as sealed")
        shot("03-providers")
        browser_log("providers (health)")

        # 8. Queues and live rates.
        driver.find_element(By.CSS_SELECTOR, "nav a[data-slug=queues]").click()
        wait.until(EC.presence_of_element_located((By.ID, "q-delivered")))
        waiter().until(lambda d: d.find_element(By.ID, "r-sent").text not in ("…", ""))
        checks.ok(text("#q-delivered") == "1" and text("#q-failed") == "1", "queues: outbox counts (1 delivered, 1 failed)")
        checks.ok(re.fullmatch(r"\d+\.\d", text("#r-sent")) is not None, "queues: a live rate from /metrics (%s/s)" % text("#r-sent"))
        shot("08-queues")
        browser_log("queues")

        # 9. User pushes (issue 31 part 3): "what happened to Alice's push?". Alice mutes carol,
        # then eleven chat messages reach her through the mock APNs (the seventh, carol's, is
        # skipped by the mute); her device reports the newest delivered and opened.
        app_admin = dict(admin, appid=APP)
        status, body = http("PUT", base + "/users/alice/push-preferences/mutes", app_admin, {"receiverType": "user", "receiver": "carol"})
        assert status == 200, body

        def chat_to_alice(sender, message_id):
            return {"type": "chat", "recipients": [{"uid": "alice"}], "message": {
                "id": message_id, "category": "message", "receiverType": "user", "text": "Message " + message_id,
                "sender": {"uid": sender, "name": sender.title()}, "receiver": {"uid": "alice", "name": "Alice"}}}

        def send_to_alice(sender):
            message_id = "m-" + secrets.token_hex(6)
            status, body = http("POST", base + "/notifications/push/v1/send", app_admin, chat_to_alice(sender, message_id))
            assert status == 200, body
            time.sleep(0.01)  # each push in its own millisecond: newest first is the reverse of the sends
            return body["data"]["requestId"], message_id

        def stats():
            status, body = http("GET", base + "/notifications/push/v1/stats?minutes=60", app_admin)
            assert status == 200, body
            return body["data"]

        def settled():
            """The stats once no push is in flight (the mock answers at once)."""
            deadline = time.monotonic() + 60
            while True:
                data = stats()
                if data["totals"]["inFlight"] == 0 or time.monotonic() > deadline:
                    return data
                time.sleep(0.2)

        def alice_pushes(query):
            status, body = http("GET", base + "/users/alice/pushes" + query, app_admin)
            assert status == 200, body
            return body["data"]

        sends = [send_to_alice("carol" if index == 6 else "dave") for index in range(11)]
        requests = [request for request, _ in sends]
        skipped_request = requests[6]
        settled()
        newest = alice_pushes("?limit=1")["pushes"][0]
        assert newest["requestId"] == requests[-1], newest
        alice_client = {"appid": APP, "authToken": auth["alice"]}
        status, body = http("POST", base + "/users/dave/conversation/delivered", alice_client,
                            {"messageId": sends[-1][1], "pushId": newest["pushId"], "deliveredBy": "extension"})
        assert status == 200, body
        time.sleep(0.01)
        status, body = http("POST", base + "/notifications/push/v1/pushes/%s/opened" % newest["pushId"], alice_client, {})
        assert status == 200, body
        everything = alice_pushes("?limit=100")["pushes"]
        by_id = {p["pushId"]: p for p in everything}

        def listed():
            """The list's rows: push id, creation (ms) and request id, top to bottom."""
            return driver.execute_script(
                "return Array.prototype.map.call(document.querySelectorAll('#pushes-list tr[data-push-id]'), function (r) {"
                " return [r.getAttribute('data-push-id'), Number(r.getAttribute('data-created')), r.getAttribute('data-request')]; });")

        def timeline():
            """The timeline's steps, in page order: step, time (ms), whether marked stopped, text."""
            return driver.execute_script(
                "return Array.prototype.map.call(document.querySelectorAll('#trace-steps > li'), function (li) {"
                " return [li.getAttribute('data-step'), Number(li.getAttribute('data-at')), li.classList.contains('stopped'), li.textContent]; });")

        def open_trace(push_id):
            driver.find_element(By.CSS_SELECTOR, "#pushes-list tr[data-push-id='%s'] button" % push_id).click()
            waiter().until(lambda d: d.find_elements(By.CSS_SELECTOR, "#trace-steps > li")
                           and push_id in d.find_element(By.ID, "push-trace").text, "pushes: the trace of %s is not shown" % push_id)
            return timeline()

        def find_user(uid):
            field_ = driver.find_element(By.ID, "pushes-uid")
            field_.send_keys(Keys.CONTROL, "a")
            field_.send_keys(uid + Keys.ENTER)

        driver.find_element(By.CSS_SELECTOR, "nav a[data-slug=pushes]").click()
        wait.until(EC.url_contains("/dashboard/pushes"))
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#rate-chart rect.bar")))
        find_user("alice")
        waiter().until(lambda d: len(listed()) == 10, "pushes: alice's first page not listed")
        rows = listed()
        first_page = alice_pushes("?limit=10")
        checks.ok([r[0] for r in rows] == [p["pushId"] for p in first_page["pushes"]],
                  "pushes: the first page lists alice's 10 newest pushes as the API does")
        checks.ok([r[2] for r in rows] == requests[::-1][:10] and all(a[1] >= b[1] for a, b in zip(rows, rows[1:])),
                  "pushes: newest first (the last send at the top, creation times never increase)")
        checks.ok("uid=alice" in driver.current_url and "10 pushes of alice shown" in text("#pushes-summary"),
                  "pushes: the URL keeps the uid; the summary says more are older (%s)" % text("#pushes-summary"))
        more = driver.find_element(By.ID, "pushes-more")
        checks.ok(more.is_displayed() and first_page["next"] is not None, "pushes: More is shown while the API has a next page")
        more.click()
        waiter().until(lambda d: len(listed()) == len(everything), "pushes: More did not add the older pushes")
        rows = listed()
        checks.ok([r[0] for r in rows] == [p["pushId"] for p in everything] and len(set(r[0] for r in rows)) == len(rows) == 12,
                  "pushes: More appends the next page: all 12 pushes once, in the API's order")
        checks.ok(not driver.find_element(By.ID, "pushes-more").is_displayed(), "pushes: More is gone on the last page")
        focused = driver.execute_script("var r = document.activeElement.closest('tr'); return r && r.getAttribute('data-push-id');")
        checks.ok(focused == rows[10][0], "pushes: the focus moves to the first push More added")

        # The newest push's timeline: accepted → preferences → sent (APNs' 200) → delivered → opened.
        steps = open_trace(newest["pushId"])
        device = by_id[newest["pushId"]]["device"]
        checks.ok([s[0] for s in steps] == ["accepted", "preferences", "sent", "delivered", "opened"]
                  == [s["step"] for s in device["steps"]], "trace: the steps in order (%s)" % [s[0] for s in steps])
        checks.ok([s[1] for s in steps] == [s["at"] for s in device["steps"]] and all(a[1] <= b[1] for a, b in zip(steps, steps[1:])),
                  "trace: each step at the API's time, in time order")
        sent = device["steps"][2]["detail"]
        checks.ok("APNs answered 200" in steps[2][3] and sent["apns-id"] in steps[2][3],
                  "trace: the sent step shows APNs' answer (200, apns-id %s)" % sent["apns-id"])
        checks.ok("+0 ms" in steps[0][3] and re.search(r"\+\d", steps[4][3]) is not None,
                  "trace: each step's offset from accepted (%s / %s)" % (steps[0][3], steps[4][3]))
        checks.ok("Rule: none" in steps[1][3] and device["interruptionLevel"] in steps[1][3] and device["levelReason"] in steps[1][3],
                  "trace: the preferences step shows the rule and the interruption level with its reason (%s)" % steps[1][3])
        checks.ok("notification service extension" in steps[3][3] and not any(s[2] for s in steps),
                  "trace: delivered by the extension; nothing stopped")
        checks.ok(driver.find_element(By.CSS_SELECTOR, "tr[data-push-id='%s'] button" % newest["pushId"]).get_attribute("aria-pressed") == "true",
                  "trace: the picked push is marked in the list")
        shot("09-pushes-trace")

        # Carol's push, skipped by alice's mute: the timeline stops at preferences with the rule.
        skipped = [p for p in everything if p["requestId"] == skipped_request][0]
        steps = open_trace(skipped["pushId"])
        checks.ok([s[0] for s in steps] == ["accepted", "preferences"] and steps[1][2] and "Stopped here: muted" in steps[1][3],
                  "trace: a skipped push stops at preferences, its rule (muted) highlighted (%s)" % [s[:3] for s in steps])
        checks.ok(driver.find_elements(By.CSS_SELECTOR, "#trace-steps li.stopped .stop-reason")
                  and "muted" in driver.find_element(By.CSS_SELECTOR, "tr[data-push-id='%s']" % skipped["pushId"]).text,
                  "trace: the stop reason is marked; the list's Rule column says muted")
        shot("09b-pushes-skipped")

        # The charts: one bar (and one stack) per minute of the hour, the totals as text, as the API says.
        checks.ok(len(driver.find_elements(By.CSS_SELECTOR, "#rate-chart rect.bar")) == 60,
                  "charts: the send rate has 60 bars (one per minute)")
        checks.ok(len(driver.find_elements(By.CSS_SELECTOR, "#outcome-chart g.minute")) == 60,
                  "charts: the outcomes have 60 stacks (one per minute)")
        # One more push, then Refresh: the list and the charts are read again.
        latest, _ = send_to_alice("dave")
        expected = settled()
        driver.find_element(By.ID, "pushes-refresh").click()
        waiter().until(lambda d: listed() and listed()[0][2] == latest
                       and d.find_element(By.ID, "total-accepted").text == str(expected["totals"]["accepted"]),
                       "refresh: the new push and the new totals are not shown")
        totals = expected["totals"]
        shown = {key: text("#total-" + key) for key in ("delivered", "failed", "expired", "skipped", "inFlight")}
        checks.ok(shown == {key: str(totals[key]) for key in shown} and totals["accepted"] == 14 and totals["skipped"] == 1,
                  "charts: the totals as text match GET /stats (%s; %s)" % (shown, totals))
        bars = driver.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('#rate-chart rect.bar'), function (r) {"
            " return [Number(r.getAttribute('data-at')), Number(r.getAttribute('data-value')), Number(r.getAttribute('height'))]; });")
        api_busy = {m["at"]: m["accepted"] for m in expected["minutes"] if m["accepted"]}
        checks.ok(len(bars) == 60 and {b[0]: b[1] for b in bars if b[1]} == api_busy and all((b[2] > 0) == (b[1] > 0) for b in bars),
                  "charts: the bars are the API's accepted per minute; a bar is drawn exactly for a minute with pushes (%s)" % api_busy)
        segments = driver.execute_script(
            "var t = {}; Array.prototype.forEach.call(document.querySelectorAll('#outcome-chart rect.seg'), function (r) {"
            " var k = r.getAttribute('data-outcome'); t[k] = (t[k] || 0) + Number(r.getAttribute('data-value')); }); return t;")
        checks.ok({k: segments.get(k, 0) for k in shown} == {k: totals[k] for k in shown},
                  "charts: the stacked segments add up to the totals (%s)" % segments)
        rate = driver.find_element(By.ID, "rate-chart")
        checks.ok(rate.get_attribute("role") == "img" and "Send rate" in driver.execute_script("return document.getElementById('rate-chart-title').textContent")
                  and ("%d accepted" % totals["accepted"]) in driver.execute_script("return document.getElementById('rate-chart-desc').textContent")
                  and ("%d delivered" % totals["delivered"]) in driver.execute_script("return document.getElementById('outcome-chart-desc').textContent"),
                  "charts: each is an image with a <title> and a description giving the totals")
        checks.ok("Stopped here: muted" in text("#push-trace") and skipped["pushId"] in text("#push-trace"),
                  "refresh: the picked push's trace stays shown")
        browser_log("user pushes")

        # Held and cancelled (issue 31 part 2): alice reads dave's conversation on the web. A push
        # held 1 s is sent when its hold ends; one held 15 s is cancelled by her read.
        def set_hold(seconds):
            status, body = http("PUT", base + "/apps/" + APP, admin, {"holdWhileActiveSeconds": seconds})
            assert status == 200, body

        status, body = http("PUT", base + "/users/alice/activity", app_admin, {"conversationId": "alice_user_dave", "seconds": 120})
        assert status == 200, body
        def push_of(request_id):
            return [p for p in alice_pushes("?limit=100")["pushes"] if p["requestId"] == request_id][0]

        set_hold(1)
        held_request, _ = send_to_alice("dave")
        # Her read would cancel it too while it waits: it is read once the push went.
        deadline = time.monotonic() + 60
        while push_of(held_request)["state"] != "delivered" and time.monotonic() < deadline:
            time.sleep(0.2)
        set_hold(15)
        cancelled_request, _ = send_to_alice("dave")
        status, body = http("POST", base + "/users/alice/read", app_admin, {"receiverType": "user", "receiver": "dave"})
        assert status == 200, body
        held, cancelled = push_of(held_request), push_of(cancelled_request)
        checks.ok(held["state"] == "delivered" and held["rule"] == "held-while-active"
                  and cancelled["state"] == "skipped" and cancelled["rule"] == "read-elsewhere",
                  "hold: the push held 1 s was delivered, the one held 15 s cancelled by the read (%s, %s)" % (
                      (held["state"], held["rule"]), (cancelled["state"], cancelled["rule"])))
        driver.find_element(By.ID, "pushes-refresh").click()
        waiter().until(lambda d: {held["pushId"], cancelled["pushId"]} <= {r[0] for r in listed()},
                       "pushes: the held and the cancelled push are not listed")
        steps = open_trace(held["pushId"])
        checks.ok([s[0] for s in steps] == ["accepted", "preferences", "sent"] and not any(s[2] for s in steps)
                  and "held-while-active" in steps[1][3] and "Held: the user was reading" in steps[1][3]
                  and "APNs answered 200" in steps[2][3] and steps[2][1] - steps[0][1] >= 1000,
                  "trace: a held push shows its hold at preferences, then APNs' 200 at least 1 s after it was accepted (%s)" % (
                      [s[:2] for s in steps],))
        steps = open_trace(cancelled["pushId"])
        checks.ok([s[0] for s in steps] == ["accepted", "preferences"] and steps[1][2]
                  and "Stopped here: read-elsewhere" in steps[1][3] and "Cancelled: the user read" in steps[1][3],
                  "trace: a cancelled push stops at preferences: read elsewhere (%s)" % [s[:3] for s in steps])
        shot("09e-pushes-cancelled")
        status, body = http("PUT", base + "/users/alice/activity", app_admin, {"conversationId": None})
        assert status == 200, body
        browser_log("user pushes (held and cancelled)")

        # Bob's push, refused by the mock: its timeline stops at sent with APNs' reason.
        find_user("bob")
        waiter().until(lambda d: len(listed()) == 1, "pushes: bob's push not listed")
        steps = open_trace(listed()[0][0])
        checks.ok([s[0] for s in steps] == ["accepted", "preferences", "sent"] and steps[2][2] and "Stopped here: BadDeviceToken" in steps[2][3],
                  "trace: a refused push stops at sent with APNs' reason highlighted (%s)" % [s[:3] for s in steps])
        shot("09c-pushes-failed")

        # An unknown uid: the API's message, nothing listed.
        allowed_404[0] = ("/users/nobody-",)
        find_user("nobody-" + secrets.token_hex(3))
        waiter().until(lambda d: d.find_element(By.ID, "pushes-error").text != "", "pushes: no error for an unknown uid")
        status, body = http("GET", base + "/users/nobody-x/pushes", app_admin)
        checks.ok(status == 404 and text("#pushes-error") == "%s (%s)" % (body["error"]["message"], body["error"]["code"]),
                  "pushes: an unknown uid shows the API's message and code (%s)" % text("#pushes-error"))
        checks.ok(listed() == [] and not driver.find_elements(By.CSS_SELECTOR, "#trace-steps")
                  and driver.find_element(By.ID, "pushes-uid").get_attribute("aria-invalid") == "true",
                  "pushes: nothing listed or traced, the uid field marked")
        shot("09d-pushes-unknown")
        browser_log("user pushes (unknown uid)")
        allowed_404[0] = ()

        # The key never appeared in a URL or on a page; signing out forgets it.
        checks.ok(all(admin_key not in url for url in visited), "the admin key never appears in a URL")
        driver.find_element(By.ID, "sign-out").send_keys(Keys.ENTER)
        wait.until(EC.presence_of_element_located((By.ID, "admin-key")))
        checks.ok(driver.execute_script("return sessionStorage.length") == 0, "sign out: the key is forgotten")
        driver.get(base + "/dashboard/providers")
        wait.until(EC.presence_of_element_located((By.ID, "admin-key")))
        checks.ok("/dashboard?next=" in driver.current_url, "signed out: a page sends you to sign in")
        browser_log("signed out")
        with open(log_path) as f:
            checks.ok(admin_key not in f.read(), "the service's log never contains the admin key")

        print("dashboard-test: screenshots:")
        for name in sorted(os.listdir(shots)):
            print("  " + os.path.join(shots, name))
    except TimeoutException as error:
        checks.ok(False, "timed out waiting in the browser at %s: %s" % (driver.current_url if driver else "?", error.msg))
        if driver:
            driver.save_screenshot(os.path.join(shots, "failure.png"))
            print("  page text: " + driver.find_element(By.TAG_NAME, "body").text[:1500])
            print("  browser log: " + json.dumps(driver.get_log("browser"))[:1500])
    finally:
        if driver:
            driver.quit()
        for process in reversed(processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)
    print("dashboard-test: %d passed, %d failed" % (checks.passed, checks.failed))
    return 0 if checks.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
