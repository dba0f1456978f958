export { ActionForm, ActionStatus, type ActionStatusProps } from "./action-form";
export {
  type Action,
  type ActionOptions,
  type ActionWork,
  FormError,
  failureOf,
  leavePage,
  useAction,
} from "./use-action";
