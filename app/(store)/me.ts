/** The person a phone buys as in workshop mode: their buyer id (in a cookie) and display name. */
export interface Me {
  readonly buyer: string;
  readonly name: string;
}
