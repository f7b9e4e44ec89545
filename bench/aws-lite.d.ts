/** The DynamoDB plugin of `@aws-lite/client` ships no types of its own; the bench uses it untyped. */
declare module '@aws-lite/dynamodb' {
  const plugin: unknown;
  export default plugin;
}
