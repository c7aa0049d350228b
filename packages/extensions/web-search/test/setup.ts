// Runs before every test file: a key or proxy in the developer's shell must not reach a test.
for (const name of [
  "TAVILY_API_KEY",
  "TAVILY_HTTP_PROXY",
  "TAVILY_HTTPS_PROXY",
  "TAVILY_PROJECT",
  "TAVILY_ORG_ID",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "http_proxy",
  "https_proxy",
  "ALL_PROXY",
  "all_proxy",
])
  delete process.env[name];
process.env.NO_PROXY = "127.0.0.1,localhost";
process.env.no_proxy = "127.0.0.1,localhost";
