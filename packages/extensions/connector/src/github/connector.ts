// The GitHub connector: Octokit against api.github.com or a GitHub Enterprise base URL, a token
// from GITHUB_TOKEN or `keel connector login github`, and the issue, pull request, contents and
// search actions.
import { defineConnector } from "../sdk/connector.js";
import { classifyGitHubError, GITHUB_API, type GitHubClient, githubClient } from "./client.js";
import { closeIssue, commentIssue, createIssue, getIssue, listIssues, updateIssue } from "./issues.js";
import {
  createPullRequest,
  createReviewComment,
  getPullRequest,
  getPullRequestDiff,
  listPullRequests,
  mergePullRequest,
} from "./pulls.js";
import { getContents, searchCode, searchIssues } from "./repos.js";

export const githubConnector = defineConnector<GitHubClient>({
  id: "github",
  label: "GitHub",
  description: "Issues, pull requests, file contents and search on GitHub or GitHub Enterprise.",
  defaultBaseUrl: GITHUB_API,
  auth: {
    env: "GITHUB_TOKEN",
    tokenName: "personal access token",
    help:
      "Create a fine-grained personal access token at https://github.com/settings/personal-access-tokens " +
      "with Issues, Pull requests and Contents permissions (read and write) for the repositories you want Keel to use.",
  },
  client: (token, settings) => githubClient(token, settings.baseUrl),
  classifyError: classifyGitHubError,
  whoami: (client, { attempt, signal }) =>
    attempt(() => client.users.getAuthenticated({ request: { signal } })).map(({ data }) => data.login),
  actions: [
    listIssues,
    getIssue,
    createIssue,
    updateIssue,
    commentIssue,
    closeIssue,
    listPullRequests,
    getPullRequest,
    getPullRequestDiff,
    createPullRequest,
    createReviewComment,
    mergePullRequest,
    getContents,
    searchCode,
    searchIssues,
  ],
});
