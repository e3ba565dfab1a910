// The page's one way to the server: POST /graphql with the bearer token kept in this tab's
// sessionStorage (never in a URL, never in localStorage).
const KEY = "bio-mcp-token";
const ENDPOINT = new URL("../graphql", document.baseURI);

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

export class GraphQLFailure extends Error {
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export async function gql(query, variables = {}) {
  const response = await fetch(ENDPOINT, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token.get() || ""}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) throw new GraphQLFailure("the token was refused: sign in again", "UNAUTHORIZED", 401);
  if (body.errors?.length) {
    const first = body.errors[0];
    throw new GraphQLFailure(first.message, first.extensions?.code || "GRAPHQL", response.status);
  }
  if (!response.ok) throw new GraphQLFailure(`the server answered HTTP ${response.status}`, "HTTP", response.status);
  return body.data;
}
