// @keel/ext-connector/sdk: the connector SDK alone, for connector packages — defineConnector,
// actions, errors and text helpers — without the GitHub and Linear connectors and their types.
export { err, ok, type Result, ResultAsync } from "neverthrow";
export {
  type ActionContext,
  type ActionOutput,
  type ActionReturn,
  actionsFor,
  type Connector,
  type ConnectorAction,
  type ConnectorAuth,
  type ConnectorDefinition,
  type ConnectorSettings,
  defineConnector,
  entryName,
  type Sensitivity,
  type SideEffectClass,
} from "./sdk/connector.js";
export {
  type ConnectorError,
  type ConnectorErrorType,
  connectorError,
  describeError,
  errorTypeForStatus,
  isNetworkFailure,
} from "./sdk/errors.js";
export { fieldLines, truncate } from "./sdk/text.js";
