// The Linear connector: the official GraphQL SDK against api.linear.app or the configured URL,
// a personal API key from LINEAR_API_KEY or `keel connector login linear`.
import { defineConnector } from "../sdk/connector.js";
import {
  archiveIssue,
  commentIssue,
  createIssue,
  getIssue,
  listIssues,
  listTeams,
  searchIssues,
  updateIssue,
} from "./actions.js";
import { classifyLinearError, LINEAR_API, type LinearConnection, linearClient } from "./client.js";

export const linearConnector = defineConnector<LinearConnection>({
  id: "linear",
  label: "Linear",
  description: "Issues, comments and teams in Linear.",
  defaultBaseUrl: LINEAR_API,
  auth: {
    env: "LINEAR_API_KEY",
    tokenName: "personal API key",
    help: "Create a personal API key in Linear under Settings → Account → Security & access.",
  },
  client: (token, settings) => linearClient(token, settings.baseUrl),
  classifyError: classifyLinearError,
  whoami: (client, { attempt }) =>
    attempt(() =>
      client.request<{ viewer: { name: string; email: string } }>(
        "query KeelViewer { viewer { name email } }",
      ),
    ).map(({ viewer }) => `${viewer.name} <${viewer.email}>`),
  actions: [
    listTeams,
    listIssues,
    searchIssues,
    getIssue,
    createIssue,
    commentIssue,
    updateIssue,
    archiveIssue,
  ],
});
