/** The default consent disclosure in Spanish, one entry per paragraph (see ../consent-text.ts). */
export const es: readonly string[] = [
  'Consentimiento para el uso de documentos y firmas electrónicos',
  'El remitente de este documento solicita facilitárselo y obtener su firma por medios electrónicos. Antes de continuar, lea la siguiente información.',
  'Copias en papel. Tiene derecho a recibir este documento en papel. Para solicitar una copia en papel, póngase en contacto con el remitente a través de los datos de contacto de que ya disponga; el remitente podrá cobrarle una tarifa razonable si así se lo indica. Tras la firma, recibirá el documento completado por correo electrónico y podrá imprimirlo.',
  'Retirada del consentimiento. Puede retirar su consentimiento para realizar trámites por medios electrónicos en cualquier momento antes de firmar, eligiendo «No acepto» en esta página o comunicándoselo al remitente. La retirada pone fin a esta solicitud de firma electrónica: el documento se rechaza y el remitente deberá proporcionárselo en papel o por otro medio. La retirada no afecta a la validez jurídica de lo que haya firmado electrónicamente con anterioridad.',
  'Alcance. Su consentimiento se aplica a este documento y a las notificaciones relacionadas con él que le enviemos por correo electrónico.',
  'Hardware y software. Necesita un dispositivo con acceso a internet, un navegador web actualizado (por ejemplo, una versión reciente de Chrome, Edge, Firefox o Safari) con JavaScript activado, una cuenta de correo electrónico y la posibilidad de ver y guardar o imprimir archivos PDF.',
  'Actualización de sus datos de contacto. Si cambia su dirección de correo electrónico u otros datos de contacto, comuníqueselo al remitente para que pueda dirigirse a usted en relación con este documento.',
  'Al elegir «Acepto», confirma que puede acceder a esta información y a documentos en formato PDF y leerlos, y que acepta el uso de documentos y firmas electrónicos para este documento.',
];
