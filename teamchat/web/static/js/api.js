// Calls to the server's API under /json: the session cookie authenticates, and every write
// carries the CSRF token from the `csrftoken` cookie as X-CSRFToken (Zulip's web-app rule).

export class ApiError extends Error {
  constructor(status, body) {
    super(body.msg || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || "";
    this.body = body;
  }
}

// The server could not be reached, or answered with something that is not the API's JSON.
export class NetworkError extends Error {}

export function csrfToken(cookies = document.cookie) {
  const match = cookies.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

// Like python-zulip-api: strings as they are, everything else JSON-encoded, undefined dropped.
export function encodeParams(params) {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    form.append(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  return form;
}

export async function call(method, path, params = {}, options = {}) {
  let url = `/json${path}`;
  const init = { method, credentials: "same-origin", headers: {}, signal: options.signal };
  const form = encodeParams(params);
  if (method === "GET") {
    const query = form.toString();
    if (query) url += `?${query}`;
  } else {
    init.body = form;
    init.headers["X-CSRFToken"] = csrfToken();
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new NetworkError(error.message);
  }
  let body;
  try {
    body = await response.json();
  } catch {
    const error = new NetworkError(`unexpected answer (HTTP ${response.status})`);
    error.status = response.status; // the server answered, if not with the API's JSON
    throw error;
  }
  if (!response.ok || body.result !== "success") throw new ApiError(response.status, body);
  return body;
}

export const get = (path, params, options) => call("GET", path, params, options);
export const post = (path, params, options) => call("POST", path, params, options);
export const patch = (path, params, options) => call("PATCH", path, params, options);
export const del = (path, params, options) => call("DELETE", path, params, options);

export async function logOut() {
  await fetch("/accounts/logout/", {
    method: "POST",
    credentials: "same-origin",
    headers: { "X-CSRFToken": csrfToken() },
  });
}
