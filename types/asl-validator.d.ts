// asl-validator 4 ships no type declarations; this covers the programmatic API the tests use.
declare module 'asl-validator' {
  namespace validator {
    interface ValidationError {
      'Error code': string;
      Message: string;
    }
    interface Options {
      /** Check JSONPath syntax. @default true */
      checkPaths?: boolean;
      /** Check ARNs in Resource fields; `${X}` placeholders pass only while this is on. @default true */
      checkArn?: boolean;
    }
    interface Result {
      isValid: boolean;
      errors: ValidationError[];
      errorsText(separator?: string): string;
    }
  }
  /** Validates a state machine definition. Note: it mutates the definition (adds QueryLanguage). */
  function validator(definition: unknown, options?: validator.Options): validator.Result;
  export = validator;
}
