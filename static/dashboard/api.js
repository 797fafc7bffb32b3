// HTTP helpers of the dashboard: every request goes to the dynatwin server that served the page.

/** An answer that was not 2xx: `status` and the server's `{"error": ...}` text. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** GET a JSON document; throws ApiError for a non-2xx answer. */
export async function getJson(path, params) {
  const url = new URL(path, window.location.origin);
  if (params !== undefined) {
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
  }
  const response = await fetch(url, { cache: 'no-store', headers: { Accept: 'application/json' } });
  const text = await response.text();
  let body;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message = body !== undefined && typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return body;
}

export function tablePath(table) {
  return '/dynatwin/tables/' + encodeURIComponent(table);
}
