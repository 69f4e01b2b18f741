// The console's entry: a hash router over five pages (sign-in, queue, case, network, live). Each page
// renders into <main> and returns a cleanup function (timers, key handlers).
import { api, apiKey, setApiKey, ApiError } from "./api.js";
import { el, clear, toast } from "./dom.js";
import { renderQueue } from "./queue.js";
import { renderCase } from "./case.js";
import { renderLive } from "./live.js";
import { renderNetwork } from "./network.js";

// Who is signed in (GET /v1/whoami), fetched once per key and shown in the header.
let who = { key: "", text: "" };
async function showWho(onAuthError) {
  const box = document.getElementById("who");
  const key = apiKey();
  if (!key) {
    who = { key: "", text: "" };
    box.textContent = "";
    return;
  }
  if (who.key !== key) {
    try {
      const me = await api("/v1/whoami");
      who = { key, text: `${me.principal} · tenant ${me.tenant} · ${me.roles.join(", ")}` };
    } catch (e) {
      if (onAuthError(e)) return;
      who = { key: "", text: "signed in" };
    }
  }
  box.textContent = who.text;
}

const main = document.getElementById("main");
let cleanup = () => {};

function renderSignIn(params) {
  const input = el("input", {
    id: "api-key",
    name: "api-key",
    type: "password",
    autocomplete: "off",
    required: true,
    "aria-describedby": "key-help",
  });
  const error = el("p", { class: "error", role: "alert", id: "sign-in-error" });
  const form = el(
    "form",
    { class: "card narrow", "aria-labelledby": "sign-in-title" },
    el("h1", { id: "sign-in-title" }, "Sign in"),
    el("label", { for: "api-key" }, "API key"),
    input,
    el(
      "p",
      { id: "key-help", class: "help" },
      "A key with the analyst role (verdict keys create --role analyst). It is kept for this tab only.",
    ),
    el("button", { type: "submit" }, "Sign in"),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const key = input.value.trim();
    try {
      await api("/v1/cases?limit=1", { key });
      setApiKey(key);
      location.hash = params.get("next") || "#/queue";
    } catch (e) {
      error.textContent =
        e instanceof ApiError && e.status === 401
          ? "This key was refused (unknown, revoked or mistyped)."
          : e instanceof ApiError && e.status === 403
            ? "This key lacks the analyst role."
            : `Cannot sign in: ${e.message}`;
    }
  });
  main.append(form);
  input.focus();
  return () => {};
}

function route() {
  cleanup();
  clear(main);
  const hash = location.hash || "#/queue";
  const [path, query = ""] = hash.slice(1).split("?");
  const params = new URLSearchParams(query);
  const signedIn = apiKey() !== "";
  document.getElementById("nav").hidden = !signedIn;
  for (const a of document.querySelectorAll("[data-nav]")) {
    a.toggleAttribute("aria-current", path.startsWith("/" + a.dataset.nav));
  }
  if (!signedIn && path !== "/sign-in") {
    location.hash = "#/sign-in?next=" + encodeURIComponent(hash);
    return;
  }
  const onAuthError = (e) => {
    if (e instanceof ApiError && e.status === 401) {
      setApiKey("");
      toast("Your key was refused; sign in again.");
      location.hash = "#/sign-in";
      return true;
    }
    return false;
  };
  showWho(onAuthError);
  if (path === "/sign-in") cleanup = renderSignIn(params);
  else if (path.startsWith("/case/"))
    cleanup = renderCase(main, decodeURIComponent(path.slice(6)), onAuthError);
  else if (path.startsWith("/network/"))
    cleanup = renderNetwork(main, decodeURIComponent(path.slice(9)), params, onAuthError);
  else if (path === "/live") cleanup = renderLive(main, onAuthError);
  else cleanup = renderQueue(main, params, onAuthError);
  main.focus({ preventScroll: true });
}

document.getElementById("sign-out").addEventListener("click", () => {
  setApiKey("");
  location.hash = "#/sign-in";
});
window.addEventListener("hashchange", route);
route();
