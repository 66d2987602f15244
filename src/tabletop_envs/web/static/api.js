// The JSON API of the server: every call returns the parsed answer or throws an Error whose
// message is the server's (what was wrong, in the rules' words) and whose status is the answer's.

async function answer(response) {
  const text = await response.text();
  let data = null;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`the server answered ${response.status}: ${text.slice(0, 200)}`);
  }
  if (!response.ok) {
    const err = new Error(data.error || `the server answered ${response.status}`);
    err.status = response.status; // 409: the game is not where the page thought (another page)
    throw err;
  }
  return data;
}

// fetch, its failure to reach the server said as such (an Error without a status).
async function send(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error(`the server cannot be reached (${err.message})`);
  }
  return answer(response);
}

export async function get(path) {
  return send(path, { headers: { Accept: "application/json" } });
}

export async function post(path, body) {
  const init = { method: "POST", headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  return send(path, init);
}

export function seatQuery(seat, token) {
  return seat === null || seat === undefined
    ? ""
    : `?seat=${seat}&token=${encodeURIComponent(token)}`;
}
