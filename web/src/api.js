// The console's only way to the engine: same-origin fetches with the analyst's API key, which
// lives in sessionStorage (gone when the tab closes; never in localStorage or a cookie).
const KEY = "verdict.api_key";

export function apiKey() {
  return sessionStorage.getItem(KEY) || "";
}
export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

export class ApiError extends Error {
  constructor(status, message, field) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

// Returns parsed JSON (or text for text/plain answers); throws ApiError with the engine's
// error message otherwise.
export async function api(path, { method = "GET", body, key } = {}) {
  const headers = { Authorization: "Bearer " + (key ?? apiKey()) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  const type = response.headers.get("Content-Type") || "";
  const payload = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const error = payload && payload.error ? payload.error : {};
    throw new ApiError(response.status, error.message || `HTTP ${response.status}`, error.field);
  }
  return payload;
}
