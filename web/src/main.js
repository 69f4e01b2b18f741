// The console's entry: a hash router over four pages (sign-in, queue, case, live). Each page
// renders into <main> and returns a cleanup function (timers, key handlers).
import { api, apiKey, setApiKey, ApiError } from "./api.js";
import { el, clear, toast } from "./dom.js";
import { renderQueue } from "./queue.js";
import { renderCase } from "./case.js";
import { renderLive } from "./live.js";

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
  document.getElementById("who").textContent = signedIn ? "signed in" : "";
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
  if (path === "/sign-in") cleanup = renderSignIn(params);
  else if (path.startsWith("/case/"))
    cleanup = renderCase(main, decodeURIComponent(path.slice(6)), onAuthError);
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
